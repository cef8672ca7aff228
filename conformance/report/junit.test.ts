import { describe, expect, it } from 'vitest';
import { fixtureSummary } from './fixture.js';
import { toJUnit, xmlEscape } from './junit.js';

describe('JUnit report', () => {
  const xml = toJUnit(fixtureSummary());

  it('has one test case per operation and check, in one suite per check, and one for the completeness of the run', () => {
    expect(xml.match(/<testcase /g)?.length).toBe(7);
    expect(xml).toMatch(
      /<testsuites name="payments-conformance http:\/\/127.0.0.1:4010 \(stateless\)" tests="7" failures="2" errors="1" skipped="2" time="2.500">/,
    );
    expect(xml).toMatch(/<testsuite name="positive_data" tests="2" failures="1" errors="0" skipped="0"/);
    expect(xml).toContain('<testcase classname="positive_data" name="getBalance" assertions="1"/>');
  });

  it('puts the failure details in <failure>, escaped, and the skip reason in <skipped>', () => {
    expect(xml).toContain(
      '<failure message="body does not match the 200 schema: /id must be string" type="positive_data">',
    );
    expect(xml).toContain('body: {&quot;id&quot;: 7, &quot;note&quot;: &quot;&lt;&amp;&gt;&quot;}');
    expect(xml).toContain('schema path: #/properties/id/type');
    expect(xml).toContain('<skipped message="not run: the target cannot tell keys apart"/>');
    expect(xml).toContain(
      '<skipped message="not applicable: the operation declares no request rule that can be broken"/>',
    );
    expect(xml).toMatch(
      /<system-out>warning: \/amount matches a known variant[\s\S]*note: one case relaxed<\/system-out>/,
    );
  });

  it('makes a run with checks not run count as not passed: one test case in error lists them', () => {
    expect(xml).toContain(
      '<testcase classname="completeness" name="every selected check ran">\n      <error message="incomplete: 1 result(s) not run" type="incomplete">auth getBalance: the target cannot tell keys apart</error>',
    );
    const complete = fixtureSummary();
    const applicable = complete.results.filter((r) => !(r.outcome === 'skipped' && !r.notApplicable));
    const passing = toJUnit({
      ...complete,
      results: applicable,
      counts: { ...complete.counts, skipped: 1, notRun: 0 },
    });
    expect(passing).not.toContain('completeness');
    expect(passing).toMatch(/<testsuites [^>]* errors="0" skipped="1"/);
  });

  it('lists the parts of a result left unchecked in its output', () => {
    const summary = fixtureSummary();
    const [first] = summary.results;
    if (!first) throw new Error('empty fixture');
    const partial = toJUnit({
      ...summary,
      results: [{ ...first, unchecked: ['across modes: not tried, give --other-mode-api-key'] }],
    });
    expect(partial).toContain('<system-out>not run: across modes: not tried, give --other-mode-api-key</system-out>');
    expect(partial).toContain('<error message="incomplete');
  });

  it('escapes markup and drops characters XML cannot hold', () => {
    expect(xmlEscape(`a<b>&"c'\u0000\u001b`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
  });
});
