/**
 * A printer that gets a tray fitted while the agent runs: a backend registry whose backend for
 * one URI reports one more input tray (`tray-3` in media-source-supported) once its `changed`
 * is set, for the printer sync tests and the sync benchmark. Everything else is the wrapped
 * backend's; close() closes it.
 */
import { type BackendRegistry, defaultBackendRegistry } from '../../src/printing/backend-registry.js';
import type { PrinterBackend, PrinterDescription } from '../../src/printing/printer-backend.js';

/** A backend whose printer reports one more input tray once `changed` is set (a tray was fitted). */
export class TrayFittedBackend implements PrinterBackend {
  changed = false;
  constructor(private readonly inner: PrinterBackend) {}
  get uri(): string {
    return this.inner.uri;
  }
  async describe(signal?: AbortSignal): Promise<PrinterDescription> {
    const description = await this.inner.describe(signal);
    if (!this.changed) return description;
    const sources = description.attributes['media-source-supported'];
    const list = Array.isArray(sources) ? sources : sources === undefined ? [] : [sources];
    const attributes = { ...description.attributes, 'media-source-supported': [...list, 'tray-3'] };
    return { ...description, attributes };
  }
  submit: PrinterBackend['submit'] = (job, signal) => this.inner.submit(job, signal);
  jobState: PrinterBackend['jobState'] = (id, signal) => this.inner.jobState(id, signal);
  cancel: PrinterBackend['cancel'] = (id, signal) => this.inner.cancel(id, signal);
  close: PrinterBackend['close'] = () => this.inner.close();
}

/** The default registry, but ipp backends of `changedUri` are TrayFittedBackends (see fitted()). */
export function registryWithTrayChange(changedUri: string): {
  registry: BackendRegistry;
  fitted: () => TrayFittedBackend[];
} {
  const base = defaultBackendRegistry();
  const registry = defaultBackendRegistry();
  const made: TrayFittedBackend[] = [];
  registry.register('ipp', (url, context) => {
    const inner = base.create(url.href, context);
    if (url.href !== changedUri) return inner;
    const backend = new TrayFittedBackend(inner);
    made.push(backend);
    return backend;
  });
  return { registry, fitted: () => made };
}
