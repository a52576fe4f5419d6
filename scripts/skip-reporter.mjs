// A node:test reporter (--test-reporter) that writes one JSON line per skipped test or suite:
// { name, file, line, suite, reason } with reason null when the skip gave none (`skip: true`,
// `t.skip()`). scripts/run-tests.mjs sends it to a temporary file and prints the list after the
// run, next to the normal reporter's output.
//
// Node's own "# skipped" count leaves out a skipped describe (it counts as a suite) and the tests
// inside it (never registered): this reporter lists the suite, so nothing is skipped silently.
export default async function* skipReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file, line, details } = event.data;
    if (skip === undefined || skip === false) continue;
    yield `${JSON.stringify({
      name,
      file: file ?? null,
      line: line ?? null,
      suite: details?.type === 'suite',
      reason: typeof skip === 'string' && skip !== '' ? skip : null,
    })}\n`;
  }
}
