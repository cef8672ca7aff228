import { describe, expect, it } from 'vitest';
import { fixtureSummary } from './fixture.js';
import { toJUnit, xmlEscape } from './junit.js';

describe('JUnit report', () => {
  const xml = toJUnit(fixtureSummary());

  it('has one test case per operation and check, in one suite per check', () => {
    expect(xml.match(/<testcase /g)?.length).toBe(5);
    expect(xml).toMatch(/<testsuites name="payments-conformance http:\/\/127.0.0.1:4010 \(stateless\)" tests="5" failures="2" errors="0" skipped="1" time="2.500">/);
    expect(xml).toMatch(/<testsuite name="positive_data" tests="2" failures="1" errors="0" skipped="0"/);
    expect(xml).toContain('<testcase classname="positive_data" name="getBalance" assertions="1"/>');
  });

  it('puts the failure details in <failure>, escaped, and the skip reason in <skipped>', () => {
    expect(xml).toContain('<failure message="body does not match the 200 schema: /id must be string" type="positive_data">');
    expect(xml).toContain('body: {&quot;id&quot;: 7, &quot;note&quot;: &quot;&lt;&amp;&gt;&quot;}');
    expect(xml).toContain('schema path: #/properties/id/type');
    expect(xml).toContain('<skipped message="the target cannot tell keys apart"/>');
    expect(xml).toMatch(/<system-out>warning: \/amount matches a known variant[\s\S]*note: one case relaxed<\/system-out>/);
  });

  it('escapes markup and drops characters XML cannot hold', () => {
    expect(xmlEscape(`a<b>&"c'\u0000\u001b`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
  });
});
