import type { PhraseList } from '../payment/statements';
import { shown } from './escape';
import type { PolicyReview } from '../impact/model';
import {
  hostPhrase,
  isList,
  named,
  policyStatement,
  say,
  stateOf,
  type ItemList,
  type Phrase,
  type Span,
} from '../impact/statements';

/**
 * What a review says (`./statements.ts`) as plain text, for the policy pack's messages, which the
 * engine prints as they are: a list's lines indented under its title, a line's notes in
 * parentheses, names quoted. The engine prints them to a terminal or a CI log, so every span is
 * {@link shown}: words carry values too (a time, a reason), and no value ends a line or sends a
 * terminal a command.
 */

function spanText(span: Span): string {
  if (typeof span === 'string') return shown(span);
  if ('value' in span) return shown(span.value);
  if ('name' in span) return `"${shown(span.name)}"`;
  return shown(span.stress);
}

/** A phrase as text. */
export function text(phrase: Phrase): string {
  return phrase.map(spanText).join('');
}

/** A list as its title, then a line per item: URL, pages and notes. */
export function listText(list: ItemList): string {
  return [
    `${text(list.title)}:`,
    ...list.lines.map((line) => `  - ${shown(line.url)} ${text(line.pages)} (${line.notes.map(text).join('; ')})`),
    ...(list.more > 0 ? [`  - and ${list.more} more`] : []),
  ].join('\n');
}

/** A titled list of sentences: its title, then a sentence per item, indented. */
export function phraseListText(list: PhraseList): string {
  return [`${text(list.title)}:`, ...list.items.map((item) => `  - ${text(item)}`)].join('\n');
}

/** A payment policy's message (`./payment-statements.ts`): what is wrong, item by item, then how to fix it. */
export function findingText(finding: { list: ItemList | PhraseList; fix: Phrase }): string {
  const list = 'lines' in finding.list ? listText(finding.list) : phraseListText(finding.list);
  return `${list}\n${text(finding.fix)}`;
}

/** A CSP policy of the stack, for a message about it: `CspPolicy "checkout" (allow on checkout.example.com)`. */
export function policyText(review: Pick<PolicyReview, 'name' | 'action' | 'enabled' | 'hostname'>): string {
  return text(say`CspPolicy ${named(review.name)} (${stateOf(review)} on ${hostPhrase(review.hostname)})`);
}

/** What `csp-change-impact` says of a policy: what it is compared with, what changes, and what it does to each kind. */
export function impactText(review: PolicyReview): string {
  const statement = policyStatement(review);
  const paragraphs = [
    ...statement.comparison,
    ...(statement.problem !== undefined ? [statement.problem] : []),
    ...(statement.notRead !== undefined ? [statement.notRead] : []),
    ...statement.changes,
    ...statement.kinds.flatMap((kind) => kind.parts),
  ];
  return [
    `${policyText(review)} ${statement.effect}.`,
    ...paragraphs.map((part) => (isList(part) ? listText(part) : text(part))),
  ].join('\n');
}
