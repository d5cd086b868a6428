/**
 * The document of a job as the two job tables store it (`jobs` and the pull queue's
 * `held_jobs`): the same five columns, read and written by these two functions only; and the
 * stored bytes of a small document, for the channel's inline offers.
 */
import { readFileSync } from 'node:fs';

/** A job's document: where it is stored, its size and hash, its type. */
export interface JobFile {
  path: string;
  size: number;
  sha256: string;
  extension: string;
  contentType: string;
}

/** The document columns of a job row. */
export interface JobFileRow {
  file_path: string;
  file_size: number;
  file_sha256: string;
  file_extension: string;
  content_type: string;
}

/** The document of a job row. */
export function jobFileOf(row: JobFileRow): JobFile {
  return {
    path: row.file_path,
    size: row.file_size,
    sha256: row.file_sha256,
    extension: row.file_extension,
    contentType: row.content_type,
  };
}

/** The named parameters `@filePath, @fileSize, @fileSha256, @fileExtension, @contentType` of an INSERT. */
export function jobFileParams(file: JobFile) {
  return {
    filePath: file.path,
    fileSize: file.size,
    fileSha256: file.sha256,
    fileExtension: file.extension,
    contentType: file.contentType,
  };
}

/**
 * The stored bytes of a job's document (for an inline offer), or undefined when the job is
 * unknown, its file was deleted or cannot be read: the connector then downloads it as usual.
 */
export function readJobDocument(
  job: { file: JobFile; fileDeleted: boolean } | undefined,
): Buffer | undefined {
  if (!job || job.fileDeleted) return undefined;
  try {
    return readFileSync(job.file.path);
  } catch {
    return undefined;
  }
}
