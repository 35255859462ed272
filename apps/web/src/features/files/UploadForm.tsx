import { useId, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ErrorNote } from '../../components/Feedback';
import { queryKeys } from '../../lib/query-keys';
import { uploadFiles } from './api';
import { inBackground } from '../../lib/background';

/** Uploads files into the folder shown (one multipart request: all of them or none). */
export function UploadForm({ workflowId, dir }: { workflowId: string; dir: string }) {
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<File[]>([]);
  const id = useId();
  const upload = useMutation({
    mutationFn: (files: File[]) => uploadFiles(workflowId, dir, files),
    onSuccess: () => {
      setChosen([]);
      if (input.current) input.current.value = '';
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.filesAll(workflowId) }));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen.length > 0) upload.mutate(chosen);
  };
  return (
    <form className="file-upload" onSubmit={submit}>
      <label htmlFor={id}>Upload to {dir === '' ? 'the workspace' : dir}</label>
      <input
        id={id}
        ref={input}
        type="file"
        multiple
        onChange={(e) => {
          upload.reset();
          setChosen([...(e.target.files ?? [])]);
        }}
      />
      <button type="submit" disabled={chosen.length === 0 || upload.isPending}>
        {upload.isPending ? 'Uploading…' : 'Upload'}
      </button>
      {upload.isSuccess && (
        <p className="muted small" role="status">
          Uploaded {upload.data.map((f) => f.path).join(', ')}.
        </p>
      )}
      <ErrorNote error={upload.error} />
    </form>
  );
}
