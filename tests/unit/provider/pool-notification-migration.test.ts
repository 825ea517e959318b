import type { Pool } from '../../../provider/client/load-balancing';
import { UNKNOWN } from '../../../provider/runtime/check';
import { pagesWithEmail } from '../../../provider/runtime/pool-notification-migration';
import { provider } from '../../../provider/dynamic/runtime/pool-notification-migration';
import { ACCOUNT } from '../../helpers/inputs';

/**
 * `PoolNotificationMigration`: check, diff and the page plan as pure tables (its methods against
 * the emulator: tests/service/provider/pool-notification-migration.test.ts).
 */

const check = (news: Record<string, unknown>) => provider.check({}, news);
const diff = (olds: Record<string, unknown>, news: Record<string, unknown>) => provider.diff(ACCOUNT, olds, news);

describe('check', () => {
  test('defaults: perPage 1000, maxRounds 3; the account id in lower case', async () => {
    expect(await check({ accountId: ACCOUNT.toUpperCase(), __provider: 'serialized' })).toEqual({
      inputs: { accountId: ACCOUNT, perPage: 1000, maxRounds: 3 },
    });
    expect(await check({ accountId: ACCOUNT, perPage: 1, maxRounds: 10 })).toEqual({
      inputs: { accountId: ACCOUNT, perPage: 1, maxRounds: 10 },
    });
  });

  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ['accountId missing', {}, 'accountId', /^is required: the account's id: 32 hexadecimal characters$/],
    [
      'accountId malformed',
      { accountId: 'acme' },
      'accountId',
      /^must be the account's id: 32 hexadecimal characters \(got "acme"\)$/,
    ],
    ['perPage 0', { accountId: ACCOUNT, perPage: 0 }, 'perPage', /^must be an integer from 1 to 1000 .*\(got 0\)$/],
    [
      'perPage 1001',
      { accountId: ACCOUNT, perPage: 1001 },
      'perPage',
      /^must be an integer from 1 to 1000 .*the API takes at most 1000\) \(got 1001\)$/,
    ],
    [
      'perPage fractional',
      { accountId: ACCOUNT, perPage: 2.5 },
      'perPage',
      /^must be an integer from 1 to 1000 .*\(got 2.5\)$/,
    ],
    [
      'perPage a string',
      { accountId: ACCOUNT, perPage: '100' },
      'perPage',
      /^must be an integer from 1 to 1000 .*\(got "100"\)$/,
    ],
    ['maxRounds 0', { accountId: ACCOUNT, maxRounds: 0 }, 'maxRounds', /^must be an integer from 1 to 10 .*\(got 0\)$/],
  ])('%s', async (_title, news, property, reason) => {
    expect(await check(news)).toEqual({
      inputs: news,
      failures: [{ property, reason: expect.stringMatching(reason) }],
    });
  });

  test('values unknown during preview are let through', async () => {
    expect(await check({ accountId: UNKNOWN, perPage: UNKNOWN })).toEqual({
      inputs: { accountId: UNKNOWN, perPage: UNKNOWN },
    });
  });
});

describe('diff', () => {
  const olds = {
    accountId: ACCOUNT,
    perPage: 1000,
    maxRounds: 3,
    poolsSeen: 60,
    poolsCleared: 60,
    removedEmails: {},
    poolsWithEmail: 0,
  };
  const news = { accountId: ACCOUNT, perPage: 1000, maxRounds: 3 };
  test.each<[string, Record<string, unknown>, Record<string, unknown>, { changes: boolean; replaces: string[] }]>([
    ['nothing changed, no e-mail back', {}, {}, { changes: false, replaces: [] }],
    ['a refresh found pools with an e-mail again', { poolsWithEmail: 2 }, {}, { changes: true, replaces: [] }],
    ['perPage changed', {}, { perPage: 25 }, { changes: true, replaces: [] }],
    ['maxRounds changed', {}, { maxRounds: 5 }, { changes: true, replaces: [] }],
    [
      'another account',
      {},
      { accountId: 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2' },
      { changes: true, replaces: ['accountId'] },
    ],
    ['account unknown during preview', {}, { accountId: UNKNOWN }, { changes: true, replaces: ['accountId'] }],
  ])('%s', async (_title, oldChange, newChange, expected) => {
    expect(await diff({ ...olds, ...oldChange }, { ...news, ...newChange })).toEqual(expected);
  });
});

describe('pagesWithEmail (which bulk-edit pages to send)', () => {
  const pools = (emails: string[]): Pool[] =>
    emails.map((email, i) => ({
      id: `${i}`,
      name: `p${i}`,
      notification_email: email,
      created_on: '',
      modified_on: '',
    }));
  test.each<[string[], number, number[]]>([
    [[], 1000, []],
    [['', '', ''], 1, []],
    [['a@x.io', '', 'b@x.io'], 1000, [1]],
    [['a@x.io', '', 'b@x.io'], 1, [1, 3]],
    [['', '', 'b@x.io', 'c@x.io', ''], 2, [2]],
    [['a@x.io', '', '', '', 'e@x.io'], 2, [1, 3]],
  ])('%j per %i: %j', (emails, perPage, pages) => {
    expect(pagesWithEmail(pools(emails), perPage)).toEqual(pages);
  });
});
