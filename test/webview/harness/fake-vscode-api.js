/* global window */
// Stands in for the API VS Code injects: records what the page posts, keeps its state,
// and lets the test play the host by posting messages to the window.
(function () {
  window.__posted = [];
  window.__state = undefined;
  let acquired = false;
  window.acquireVsCodeApi = function () {
    if (acquired) throw new Error('acquireVsCodeApi may only be called once');
    acquired = true;
    return {
      postMessage(message) {
        window.__posted.push(JSON.parse(JSON.stringify(message)));
      },
      getState() {
        return window.__state;
      },
      setState(state) {
        window.__state = JSON.parse(JSON.stringify(state));
      },
    };
  };
  window.__host = function (message) {
    window.postMessage(message, '*');
  };
})();
