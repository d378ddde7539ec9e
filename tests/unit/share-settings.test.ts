// parseShareSettings answers an upload without settings without running the schema (ADR 0020):
// that shortcut is right only while the schema's own answer for no settings is "none".
import { describe, expect, it } from 'vitest';
import { shareSettingsSchema } from '../../server/schemas';
import { parseShareSettings } from '../../server/services/share-settings';

describe('parseShareSettings', () => {
  it('when no settings are given, then the answer is the schema’s own for an empty object: no setting at all', () => {
    const schemaAnswer = shareSettingsSchema.parse({});
    for (const input of [undefined, null, {}]) {
      expect(parseShareSettings(input)).toEqual(schemaAnswer);
    }
    expect(Object.values(schemaAnswer).filter((value) => value !== undefined)).toEqual([]);
  });

  it('when settings are given, then the schema still judges them', () => {
    expect(parseShareSettings({ maxDownloads: '3' })).toMatchObject({ maxDownloads: 3 });
    expect(() => parseShareSettings({ maxDownloads: 0 })).toThrow(/maxDownloads/);
    expect(() => parseShareSettings({ unknown: 1 })).toThrow();
  });
});
