// What the pages say of a file that is not there: the share page (/f/<id>) and its raw link
// (/f/<id>/raw) alike, an unknown id and a record whose content is gone alike.

export const FILE_NOT_FOUND = 'This file does not exist, or it was deleted.';
