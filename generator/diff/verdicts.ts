// Who a change breaks. A structural change has an effect on the set of valid messages (narrows, widens,
// adds an optional member, removes one, or cannot be decided), and the effect's verdict for each party
// follows from which way the message flows. This is oasdiff's law (narrowing a request and widening a
// response break the caller) with the implementer's side stated too, and with webhooks flipped: a
// callback is a request the service sends, so the merchant's receiver reads it like a response.
import type { Family, Finding, Party, Severity } from './types.js';

/** Which way a message flows: to the service, from it, or from it to the merchant's callback endpoint. */
export type Flow = 'request' | 'response' | 'callback';

export type Effect =
  /** Fewer messages are valid: a bound tightened, a field now required, an enum value gone. */
  | 'narrows'
  /** More messages are valid: a bound relaxed, an enum value added, a field no longer required. */
  | 'widens'
  /** A new optional member (field, parameter, operation input) that can be sent. */
  | 'adds'
  /** A member that was required to be understood is gone. */
  | 'removes'
  /** An optional member is gone. */
  | 'removes-optional'
  /** The two sets cannot be compared (a changed pattern or format). */
  | 'unknown';

export interface Verdict {
  party: Party;
  severity: Severity;
  impact: string;
}

const verdict = (party: Party, severity: Severity, impact: string): Verdict => ({ party, severity, impact });

/** The reader of a message and its writer, per flow. */
const ROLES: Record<Flow, { writer: Party; reader: Party }> = {
  request: { writer: 'client', reader: 'server' },
  response: { writer: 'server', reader: 'client' },
  callback: { writer: 'server', reader: 'callback-receiver' },
};

/** The verdicts of a structural effect on a message flowing `flow`. */
export function verdictsOf(effect: Effect, flow: Flow): Verdict[] {
  const { writer, reader } = ROLES[flow];
  const readerName = reader === 'server' ? 'a server' : reader === 'client' ? 'a client' : 'a callback receiver';
  const writerName = writer === 'client' ? 'a client' : flow === 'callback' ? 'the service' : 'a server';
  switch (effect) {
    case 'narrows':
      return flow === 'request'
        ? [
            verdict(writer, 'breaking', 'requests that were valid may now be refused'),
            verdict(reader, 'potentially-breaking', 'a server must now refuse what it accepted'),
          ]
        : [
            verdict(writer, 'breaking', `what ${writerName} sent may no longer be valid: it must meet the new rule`),
            verdict(reader, 'non-breaking', `${readerName} receives a subset of what it handled`),
          ];
    case 'widens':
      return flow === 'request'
        ? [
            verdict(writer, 'non-breaking', 'every request that was valid stays valid'),
            verdict(
              reader,
              'breaking',
              'a server that still enforces the old rule refuses requests the contract now allows',
            ),
          ]
        : [
            verdict(writer, 'non-breaking', `${writerName} may keep sending what it sent`),
            verdict(reader, 'breaking', `${readerName} may receive values it was not written for`),
          ];
    case 'adds':
      return flow === 'request'
        ? [
            verdict(writer, 'non-breaking', 'clients may send it and need not'),
            verdict(reader, 'breaking', 'servers must now accept it and act on it'),
          ]
        : [
            verdict(writer, 'non-breaking', `${writerName} may send it and need not`),
            verdict(reader, 'non-breaking', `${readerName} ignores fields it does not know`),
          ];
    case 'removes':
    case 'removes-optional':
      return flow === 'request'
        ? [
            verdict(writer, 'breaking', 'a client that sends it is no longer understood (the field is ignored)'),
            verdict(reader, 'non-breaking', 'a server may ignore it'),
          ]
        : [
            verdict(writer, 'non-breaking', `${writerName} no longer has to send it`),
            verdict(
              reader,
              effect === 'removes' ? 'breaking' : 'potentially-breaking',
              `${readerName} that reads it no longer gets it`,
            ),
          ];
    case 'unknown':
      return [
        verdict(writer, 'potentially-breaking', 'the old and new rules cannot be compared: check what is sent'),
        verdict(reader, 'potentially-breaking', 'the old and new rules cannot be compared: check what is accepted'),
      ];
  }
}

/** Verdicts a rule states itself (semantics, where no flow decides). */
export const explicit = (...verdicts: [Party, Severity, string][]): Verdict[] =>
  verdicts.map(([party, severity, impact]) => verdict(party, severity, impact));

export interface Change {
  rule: string;
  family: Family;
  old?: string | undefined;
  new?: string | undefined;
  change: string;
}

/** One finding per verdict. */
export function findings(change: Change, verdicts: readonly Verdict[]): Finding[] {
  return verdicts.map(({ party, severity, impact }) => ({
    rule: change.rule,
    family: change.family,
    severity,
    party,
    ...(change.old === undefined ? {} : { old: change.old }),
    ...(change.new === undefined ? {} : { new: change.new }),
    change: change.change,
    impact,
  }));
}
