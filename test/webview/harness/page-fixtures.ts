import { makeTimeline } from './timeline-fixture';

// Bundled into the harness page so large fixtures are made in the page: sending 10,000
// records from the test process through the debugging protocol would take seconds.
(window as unknown as { __fixtures: { makeTimeline: typeof makeTimeline } }).__fixtures = { makeTimeline };
