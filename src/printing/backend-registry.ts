/**
 * BackendRegistry: picks the PrinterBackend for a printer URI by its scheme. The default
 * registry knows ipp, ipps and virtual; the spooler part registers cups and winspool. Backends
 * returned by create() belong to the caller, who calls close() on them.
 */
import { ValidationError } from '../lib/errors.js';
import { IppBackend } from './ipp/ipp-backend.js';
import type { BackendContext, BackendFactory, PrinterBackend } from './printer-backend.js';
import { cupsBackendFactory } from './cups/cups-backend.js';
import { winspoolBackendFactory } from './windows/windows-backend.js';
import { VirtualBackend } from './virtual/virtual-backend.js';

/** Scheme -> backend factory. Construct, register, then create(). */
export class BackendRegistry {
  private readonly factories = new Map<string, BackendFactory>();

  /** Registers (or replaces) the factory for a scheme such as 'ipp' (no colon, case-insensitive). */
  register(scheme: string, factory: BackendFactory): void {
    this.factories.set(scheme.replace(/:$/, '').toLowerCase(), factory);
  }

  /** The registered schemes, sorted. */
  schemes(): string[] {
    return [...this.factories.keys()].sort();
  }

  /** Makes the backend for a URI; ValidationError naming `uri` for a bad URI or an unknown scheme. */
  create(uri: string, context: BackendContext): PrinterBackend {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new ValidationError(
        'uri',
        'must be an absolute URI such as ipp://host/ipp/print',
        'uri: not an absolute URI',
      );
    }
    const scheme = url.protocol.replace(/:$/, '');
    const factory = this.factories.get(scheme);
    if (!factory) {
      throw new ValidationError(
        'uri',
        `unknown printer scheme '${scheme}' (known: ${this.schemes().join(', ')})`,
        `uri: unknown printer scheme '${scheme}' (known: ${this.schemes().join(', ')})`,
      );
    }
    return factory(url, context);
  }
}

/** A registry with ipp://, ipps:// and virtual:// backends. */
export function defaultBackendRegistry(): BackendRegistry {
  const registry = new BackendRegistry();
  const ipp: BackendFactory = (url, context) => new IppBackend(url.href, { logger: context.logger });
  registry.register('ipp', ipp);
  registry.register('ipps', ipp);
  registry.register('virtual', (url, context) => new VirtualBackend(url.href, context));
  registry.register('cups', cupsBackendFactory);
  registry.register('winspool', winspoolBackendFactory);
  return registry;
}
