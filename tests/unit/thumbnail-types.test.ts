import { describe, expect, it } from 'vitest';
import { thumbnailExpected } from '../../server/services/thumbnails';
import { THUMBNAIL_IMAGE_TYPES } from '../../server/utilities/thumbnail-types';

// The share page names a file's thumbnail as its link preview for the types of this one set
// (app/routes/f.$id.tsx), and the thumbnails are made for the same set: a type in one and not the
// other would point a link preview at a thumbnail that is never made, or hide one that is.
describe('the image types that get a thumbnail', () => {
  it('when an image of a type in the set is stored, then a thumbnail is expected for it', () => {
    for (const mimeType of THUMBNAIL_IMAGE_TYPES)
      expect({ mimeType, expected: thumbnailExpected({ mimeType, storedName: 'stored', size: 1000 }) }).toEqual({
        mimeType,
        expected: true,
      });
  });

  it('when a file of a type outside the set is stored under a name without an image extension, then no thumbnail is expected', () => {
    for (const mimeType of ['text/plain', 'application/pdf', 'image/x-icon', 'video/mp4'])
      expect(
        THUMBNAIL_IMAGE_TYPES.has(mimeType) || thumbnailExpected({ mimeType, storedName: 'stored', size: 1000 }),
      ).toBe(false);
  });
});
