/**
 * The virtual printer's IPP operations except the document transfer: request checks, Validate-Job,
 * Get-Printer-Attributes, Get-Job-Attributes, Get-Jobs and Cancel-Job, and encoding replies.
 * Works on decoded messages only (no I/O); the job table is the only state. Nothing to clean up.
 */
import { attr } from '../ipp/ipp-attributes.js';
import { encodeMessage, type IppAttribute, type IppGroup, type IppMessage } from '../ipp/ipp-codec.js';
import { JOB_STATE, OPERATION, STATUS, TAG, statusName } from '../ipp/ipp-constants.js';
import {
  filterJobAttributes,
  isFinished,
  jobAttributes,
  type VirtualJob,
  type VirtualJobTable,
} from './virtual-jobs.js';
import { filterRequested, VIRTUAL_FORMATS, virtualPrinterAttributes } from './virtual-printer-attributes.js';

/** A reply before encoding: status, optional message and the groups after the operation group. */
export interface IppReply {
  status: number;
  message?: string;
  groups?: IppGroup[];
}

/** A job as checked from a Print-Job request, before it gets an id and a file. */
export type JobDraft = Omit<VirtualJob, 'id' | 'path' | 'state' | 'reasons' | 'createdAt' | 'bytes'>;

/** Dependencies of the operations. */
export interface VirtualOperationsDeps {
  name: string;
  uuid: string;
  jobs: VirtualJobTable;
  upTime: () => number;
}

function values(message: IppMessage, groupTag: number, name: string): IppAttribute['values'] | undefined {
  return message.groups.find((g) => g.tag === groupTag)?.attributes.find((a) => a.name === name)?.values;
}

function text(message: IppMessage, name: string): string | undefined {
  const v = values(message, TAG.OPERATION, name)?.[0];
  return typeof v === 'string' ? v : undefined;
}

/** The operations of one virtual printer. */
export class VirtualOperations {
  constructor(private readonly deps: VirtualOperationsDeps) {}

  /** Checks what every request needs (RFC 8011 4.1.4): a reply refusing it, or undefined when fine. */
  checkRequest(request: IppMessage): IppReply | undefined {
    if (request.version.major < 1 || request.version.major > 2) {
      return {
        status: STATUS.VERSION_NOT_SUPPORTED,
        message: `IPP ${request.version.major}.${request.version.minor}`,
      };
    }
    if (request.requestId < 1) return { status: STATUS.BAD_REQUEST, message: 'request-id must be 1 or more' };
    const first = request.groups[0];
    const names = first?.tag === TAG.OPERATION ? first.attributes.map((a) => a.name) : [];
    if (names[0] !== 'attributes-charset' || names[1] !== 'attributes-natural-language') {
      return {
        status: STATUS.BAD_REQUEST,
        message: 'the operation group must start with attributes-charset and attributes-natural-language',
      };
    }
    if (!names.includes('printer-uri') && !names.includes('job-uri')) {
      return { status: STATUS.BAD_REQUEST, message: 'printer-uri or job-uri is required' };
    }
    return undefined;
  }

  /** Checks a Print-Job/Validate-Job request; a reply when it must be refused, else the job draft. */
  checkJob(request: IppMessage): { reply: IppReply } | { job: JobDraft; unsupported: IppAttribute[] } {
    const format = text(request, 'document-format') ?? 'application/octet-stream';
    if (!VIRTUAL_FORMATS.includes(format)) {
      return {
        reply: { status: STATUS.FORMAT_NOT_SUPPORTED, message: `document-format ${format} is not supported` },
      };
    }
    const template = request.groups.filter((g) => g.tag === TAG.JOB).flatMap((g) => g.attributes);
    const unsupported = template.filter((a) => !this.supports(a));
    const job: JobDraft = {
      name: text(request, 'job-name') ?? 'Untitled',
      ...(text(request, 'document-name') ? { documentName: text(request, 'document-name') } : {}),
      user: text(request, 'requesting-user-name') ?? 'anonymous',
      format,
      template: template.filter((a) => this.supports(a)),
    };
    return { job, unsupported };
  }

  /** Answers every operation except Print-Job. */
  dispatch(request: IppMessage, printerUri: string): IppReply {
    switch (request.code) {
      case OPERATION.GET_PRINTER_ATTRIBUTES:
        return this.printerAttributes(request, printerUri);
      case OPERATION.VALIDATE_JOB: {
        const check = this.checkJob(request);
        if ('reply' in check) return check.reply;
        return this.withUnsupported({ status: STATUS.OK }, check.unsupported);
      }
      case OPERATION.GET_JOB_ATTRIBUTES:
        return this.jobAttributesReply(request, printerUri);
      case OPERATION.GET_JOBS:
        return this.jobsReply(request, printerUri);
      case OPERATION.CANCEL_JOB:
        return this.cancel(request);
      default:
        return {
          status: STATUS.OPERATION_NOT_SUPPORTED,
          message: `operation 0x${request.code.toString(16)}`,
        };
    }
  }

  /** The Print-Job reply for a received job. */
  jobCreatedReply(job: VirtualJob, printerUri: string, request: IppMessage): IppReply {
    const check = this.checkJob(request);
    const unsupported = 'unsupported' in check ? check.unsupported : [];
    const attrs = jobAttributes(job, printerUri, this.deps.upTime());
    const keep = ['job-id', 'job-uri', 'job-state', 'job-state-reasons'];
    return this.withUnsupported(
      {
        status: STATUS.OK,
        groups: [{ tag: TAG.JOB, attributes: attrs.filter((a) => keep.includes(a.name)) }],
      },
      unsupported,
    );
  }

  /** Encodes a reply with the operation group every response starts with. */
  encodeReply(request: IppMessage, reply: IppReply): Buffer {
    const operation: IppGroup = {
      tag: TAG.OPERATION,
      attributes: [
        attr(TAG.CHARSET, 'attributes-charset', 'utf-8'),
        attr(TAG.NATURAL_LANGUAGE, 'attributes-natural-language', 'en'),
        attr(TAG.TEXT, 'status-message', reply.message ?? statusName(reply.status)),
      ],
    };
    const version =
      request.version.major === 1 || request.version.major === 2 ? request.version : { major: 1, minor: 1 };
    return encodeMessage({
      version,
      code: reply.status,
      requestId: request.requestId,
      groups: [operation, ...(reply.groups ?? [])],
    });
  }

  private supports(a: IppAttribute): boolean {
    const all = virtualPrinterAttributes(this.facts('ipp://localhost/ipp/print'));
    const supported = all.find((s) => s.name === `${a.name}-supported`);
    if (a.name === 'media-col' || a.name === 'job-priority' || a.name === 'job-hold-until') return true;
    if (!supported) return false;
    if (supported.tag === TAG.RANGE_OF_INTEGER) {
      const range = supported.values[0] as { lower: number; upper: number };
      return a.values.every((v) => typeof v === 'number' && v >= range.lower && v <= range.upper);
    }
    if (supported.tag === TAG.BOOLEAN) return supported.values[0] === true;
    if (supported.tag === TAG.RESOLUTION) {
      return a.values.every((v) => supported.values.some((s) => JSON.stringify(s) === JSON.stringify(v)));
    }
    return a.values.every((v) => supported.values.includes(v));
  }

  private withUnsupported(reply: IppReply, unsupported: IppAttribute[]): IppReply {
    if (unsupported.length === 0) return reply;
    return {
      status: reply.status === STATUS.OK ? STATUS.OK_SUBSTITUTED : reply.status,
      groups: [...(reply.groups ?? []), { tag: TAG.UNSUPPORTED_GROUP, attributes: unsupported }],
    };
  }

  private facts(printerUri: string) {
    const active = this.deps.jobs.activeCount();
    return {
      name: this.deps.name,
      uri: printerUri,
      uuid: this.deps.uuid,
      upTime: this.deps.upTime(),
      state: active > 0 ? ('processing' as const) : ('idle' as const),
      queuedJobs: active,
    };
  }

  private requested(request: IppMessage): string[] | undefined {
    return values(request, TAG.OPERATION, 'requested-attributes')?.filter(
      (v): v is string => typeof v === 'string',
    );
  }

  private printerAttributes(request: IppMessage, printerUri: string): IppReply {
    const attrs = filterRequested(virtualPrinterAttributes(this.facts(printerUri)), this.requested(request));
    return { status: STATUS.OK, groups: [{ tag: TAG.PRINTER, attributes: attrs }] };
  }

  private findJob(request: IppMessage): VirtualJob | IppReply {
    const id = values(request, TAG.OPERATION, 'job-id')?.[0];
    const uri = text(request, 'job-uri');
    const jobId = typeof id === 'number' ? id : uri ? Number(/\/(\d+)$/.exec(uri)?.[1]) : Number.NaN;
    if (!Number.isInteger(jobId))
      return { status: STATUS.BAD_REQUEST, message: 'job-id or job-uri is required' };
    return this.deps.jobs.get(jobId) ?? { status: STATUS.NOT_FOUND, message: `job ${jobId} not found` };
  }

  private jobAttributesReply(request: IppMessage, printerUri: string): IppReply {
    const job = this.findJob(request);
    if ('status' in job) return job;
    const attrs = filterJobAttributes(
      jobAttributes(job, printerUri, this.deps.upTime()),
      this.requested(request),
    );
    return { status: STATUS.OK, groups: [{ tag: TAG.JOB, attributes: attrs }] };
  }

  private jobsReply(request: IppMessage, printerUri: string): IppReply {
    const which = text(request, 'which-jobs') ?? 'not-completed';
    const limit = values(request, TAG.OPERATION, 'limit')?.[0];
    let jobs = this.deps.jobs.list(which);
    if (typeof limit === 'number' && limit > 0) jobs = jobs.slice(0, limit);
    const requested = this.requested(request) ?? ['job-id', 'job-uri'];
    const groups = jobs.map((job) => ({
      tag: TAG.JOB,
      attributes: filterJobAttributes(jobAttributes(job, printerUri, this.deps.upTime()), requested),
    }));
    return { status: STATUS.OK, groups };
  }

  private cancel(request: IppMessage): IppReply {
    const job = this.findJob(request);
    if ('status' in job) return job;
    if (isFinished(job)) return { status: STATUS.NOT_POSSIBLE, message: `job ${job.id} has already ended` };
    job.state = JOB_STATE.cancelled;
    job.reasons = ['job-canceled-by-user'];
    job.completedAt = this.deps.upTime();
    return { status: STATUS.OK };
  }
}
