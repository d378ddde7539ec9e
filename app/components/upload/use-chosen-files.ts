import { type RefObject, useCallback, useEffect, useState } from 'react';
import {
  type ChosenFile,
  entriesOfDrop,
  filesAtTheirNames,
  filesOfEntries,
  filesOfFolderInput,
} from '~/utils/chosen-files.client';
import { tooLargeMessage } from '~/utils/form-errors';
import { notSendable } from './upload-words';
import type { UploadStatus } from './use-upload-status';

/**
 * The files chosen for the upload form: from its file input, a paste, a drop (a folder too) or
 * the folder picker. Each choice is checked at once, and what is wrong is said before sending.
 */
export function useChosenFiles(input: RefObject<HTMLInputElement>, status: UploadStatus, maxUploadBytes: number) {
  const [chosen, setChosen] = useState<ChosenFile[]>([]);
  const { setError, setCollectionLink } = status;

  /** Files chosen apart from the file input (a folder): the input lets go of what it held. */
  const chooseFiles = useCallback(
    (files: ChosenFile[]) => {
      if (files.length === 0) {
        setError('That folder holds no files.');
        return;
      }
      if (input.current) input.current.value = '';
      setChosen(files);
      setCollectionLink(null);
      setError(notSendable(files, maxUploadBytes));
    },
    [input, maxUploadBytes, setError, setCollectionLink],
  );

  const choose = useCallback(
    (files: FileList | null) => {
      if (!files?.length || !input.current) return;
      input.current.files = files;
      const list = filesAtTheirNames(files);
      setChosen(list);
      setCollectionLink(null);
      setError(
        list.length === 1
          ? list[0].file.size > maxUploadBytes
            ? tooLargeMessage(maxUploadBytes)
            : null
          : notSendable(list, maxUploadBytes),
      );
    },
    [input, maxUploadBytes, setError, setCollectionLink],
  );

  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      if (event.clipboardData?.files.length) {
        event.preventDefault();
        choose(event.clipboardData.files);
      }
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, [choose]);

  /**
   * The folder picker: an input made for the moment it is used, so that the form keeps one file
   * input (the one that works without JavaScript) and a folder is never posted as the plain form.
   */
  const chooseFolder = () => {
    const picker = document.createElement('input');
    picker.type = 'file';
    picker.webkitdirectory = true;
    picker.multiple = true;
    picker.hidden = true;
    picker.setAttribute('aria-label', 'Folder to upload');
    const done = () => picker.remove();
    picker.addEventListener('change', () => {
      if (picker.files) chooseFiles(filesOfFolderInput(picker.files));
      done();
    });
    picker.addEventListener('cancel', done);
    document.body.append(picker);
    picker.click();
  };

  /** A drop: its entries must be taken at once (the drop's items are gone once its handler returns). */
  const drop = (dataTransfer: DataTransfer) => {
    const entries = entriesOfDrop(dataTransfer);
    if (entries?.some((entry) => entry.isDirectory)) {
      filesOfEntries(entries).then(chooseFiles, () =>
        setError('The dropped folder could not be read. Choose it instead.'),
      );
      return;
    }
    choose(dataTransfer.files);
  };

  return { chosen, choose, chooseFolder, drop };
}
