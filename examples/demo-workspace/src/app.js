// A tiny app for the agent to work on.
function greet(name) {
  return `Hello, ${name}!`;
}

module.exports = { greet };
