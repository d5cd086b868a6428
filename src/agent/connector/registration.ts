/**
 * Registration: the connector (idempotent by its stable serial), then each enabled printer of
 * the config — describe() at the printer, properties from its IPP attributes, create or update
 * the cloud printer with X-Host-Id, upload the properties. A printer that cannot be reached is
 * registered Offline and retried by `retryOffline`. Ids are kept in the IdentityStore.
 */
import type { AgentConfig, AgentPrinterConfig } from '../../config/agent-schema.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterBackend, PrinterDescription, PrinterState } from '../../printing/printer-backend.js';
import { ippToPrinterProperties } from '../../printing/translate/capabilities/ipp-to-properties.js';
import type { PrinterCapabilityProperties } from '../../protocol/printer-properties.js';
import type { ChannelClient, CloudPrinterInput } from '../../client/channel-client.js';
import type { IdentityStore } from '../../store/identity-store.js';
import { type HostFacts, toRegistration } from './identity.js';

/** A configured printer after registration. */
export interface RegisteredPrinter {
  config: AgentPrinterConfig;
  cloudId: string;
  tpId: number;
  backend: PrinterBackend;
  online: boolean;
  /** What the printer said at the last look, or `unreachable` when it did not answer. */
  state: PrinterState | 'unreachable';
}

/** Printer properties from a description; a seam so tests and other backends can differ. */
export type PropertiesFromDescription = (description: PrinterDescription) => PrinterCapabilityProperties;

/** The default: the capability translation of the printer's IPP attributes. */
export const describeToProperties: PropertiesFromDescription = (d) => ippToPrinterProperties(d.attributes);

/** What Registration needs; all owned by the caller. */
export interface RegistrationDeps {
  config: AgentConfig;
  channel: ChannelClient;
  identity: IdentityStore;
  logger: Logger;
  toProperties?: PropertiesFromDescription;
}

/** Registers the connector and its printers; holds no resources. */
export class Registration {
  constructor(private readonly deps: RegistrationDeps) {}

  /** Registers the connector; returns its id (stored). */
  async registerConnector(facts: HostFacts, swVersion: string, signal?: AbortSignal): Promise<string> {
    const { config, identity, channel } = this.deps;
    const serial = identity.serial(config.connector.serial);
    const connector = await channel.register(toRegistration(config, facts, serial, swVersion), signal);
    identity.setConnectorId(connector.id);
    this.deps.logger.info({ connector: connector.id }, 'connector registered');
    return connector.id;
  }

  /** Registers one printer; never throws for an unreachable printer (registers it Offline). */
  async registerPrinter(
    connectorId: string,
    entry: AgentPrinterConfig,
    backend: PrinterBackend,
    signal?: AbortSignal,
  ): Promise<RegisteredPrinter> {
    const log = this.deps.logger.child({ printer: entry.name });
    let description: PrinterDescription | undefined;
    try {
      description = await backend.describe(signal);
    } catch (error) {
      log.warn({ error: errorMessage(error) }, 'printer unreachable; registering it Offline');
    }
    const online = description !== undefined && description.state !== 'stopped';
    const ident = this.deps.identity.printer(entry.name, entry.uri);
    const input = printerInput(entry, ident.tpId, description, online);
    const cloudId = await this.upsert(connectorId, ident.cloudId, input, signal);
    this.deps.identity.saveCloudPrinter(entry.name, cloudId, description?.uuid);
    if (description) {
      const toProperties = this.deps.toProperties ?? describeToProperties;
      await this.deps.channel.uploadProperties(connectorId, cloudId, toProperties(description), signal);
    }
    log.info({ cloudId, tpId: ident.tpId, online }, 'printer registered');
    return {
      config: entry,
      cloudId,
      tpId: ident.tpId,
      backend,
      online,
      state: description?.state ?? 'unreachable',
    };
  }

  /** Marks a printer Online or Offline in the cloud. */
  async setStatus(connectorId: string, printer: RegisteredPrinter, online: boolean, signal?: AbortSignal) {
    await this.deps.channel.patchPrinter(
      connectorId,
      printer.cloudId,
      { status: online ? 'Online' : 'Offline' },
      signal,
    );
    printer.online = online;
  }

  private async upsert(
    connectorId: string,
    knownId: string | undefined,
    input: CloudPrinterInput,
    signal?: AbortSignal,
  ): Promise<string> {
    const { channel } = this.deps;
    if (knownId && (await channel.getPrinter(connectorId, knownId, signal))) {
      const updated = await channel.putPrinter(connectorId, knownId, input, signal);
      return updated.id;
    }
    const created = await channel.createPrinter(connectorId, input, signal);
    return created.id;
  }
}

/** The cloud printer body for a config entry and what the printer said. Pure. */
export function printerInput(
  entry: AgentPrinterConfig,
  tpId: number,
  description: PrinterDescription | undefined,
  online: boolean,
): CloudPrinterInput {
  const [vendor, ...model] = (description?.makeAndModel ?? '').split(' ');
  const input: CloudPrinterInput = {
    name: entry.name,
    status: online ? 'Online' : 'Offline',
    tp_id: tpId,
    supported_formats: ['PDF', 'RAW'],
  };
  if (entry.location ?? description?.location) input.location = entry.location ?? description?.location;
  if (vendor) input.vendor_name = vendor.slice(0, 255);
  if (model.length > 0) input.model_name = model.join(' ').slice(0, 255);
  if (description?.deviceId) input.pnp_id = description.deviceId;
  return input;
}
