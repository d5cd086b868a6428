/**
 * A loopback TCP proxy that fires a fault at an exact point of a conversation: it forwards bytes
 * both ways and, when an armed trigger matches, calls `fire` (the test SIGKILLs a process there)
 * and holds back whatever that connection still carries. Kill points are therefore chosen by
 * what is on the wire (the Nth Print-Job, the Nth event batch), not by timing. One trigger is
 * armed at a time; close() ends every connection. hold() keeps matching requests back until
 * release(), so a test can let work pile up behind a request in flight.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';

/** Where in a matched request/response exchange the fault fires. */
export type FirePoint =
  /**
   * Once `afterBytes` of the request went through: the client is killed mid-request. What it had
   * already written is still delivered, as its kernel would; anything after its death never is.
   */
  | { at: 'request'; afterBytes: number }
  /** When the answer arrives, before the client sees any of it (the server acted, the client never learns). */
  | { at: 'response' }
  /** Right after the first chunk of the answer reached the client (the client got its acknowledgement). */
  | { at: 'response-sent' }
  /** After `afterBytes` of the answer reached the client (a partial download). */
  | { at: 'response-partial'; afterBytes: number };

/** A fault to fire on the (skip + 1)-th request whose first bytes match `request`. */
export interface Trigger {
  name: string;
  request: RegExp;
  point: FirePoint;
  skip: number;
  fire: () => void;
}

interface Exchange {
  trigger: Trigger;
  requestBytes: number;
  responseBytes: number;
}

/** The proxy; `port` is where clients connect. */
export class FaultProxy {
  private server: Server | undefined;
  private trigger: Trigger | undefined;
  private holding: { request: RegExp; waiting: (() => void)[] } | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  /** Names of the triggers that fired, in order. */
  readonly fired: string[] = [];

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  async start(port = 0): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  /** Arms one trigger (replacing any armed one). */
  arm(trigger: Trigger): void {
    this.trigger = { ...trigger };
  }

  /** Whether a trigger is armed and has not fired yet. */
  armed(): boolean {
    return this.trigger !== undefined;
  }

  disarm(): void {
    this.trigger = undefined;
  }

  /** Requests whose first bytes match `request` (and the rest of their connection) wait at the proxy. */
  hold(request: RegExp): void {
    this.holding = { request, waiting: [] };
  }

  /** Sends on what hold() kept back, in order, and stops holding. */
  release(): void {
    const waiting = this.holding?.waiting ?? [];
    this.holding = undefined;
    for (const send of waiting) send();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    const server = connect(this.targetPort, this.targetHost);
    this.sockets.add(client).add(server);
    let exchange: Exchange | undefined;
    let frozen = false;
    let heldBy: object | undefined;
    // When one side goes (a FIN, a reset, or its process killed), the other is ended, not
    // destroyed: bytes this proxy already took from the side that went are still delivered, as a
    // router would deliver the packets in flight. Destroying it would drop the proxy's own write
    // queue, and a document the client's kernel had fully sent would reach the printer cut.
    const forget = (socket: Socket) => this.sockets.delete(socket);
    const endOther = (other: Socket) => () => {
      if (!other.destroyed) other.end();
    };
    client
      .on('error', endOther(server))
      .on('close', endOther(server))
      .on('close', () => forget(client));
    server
      .on('error', endOther(client))
      .on('close', endOther(client))
      .on('close', () => forget(server));
    const toServer = (chunk: Buffer) => {
      if (frozen) return;
      const trigger = this.trigger;
      if (exchange?.trigger !== trigger) exchange = undefined;
      if (!exchange && trigger && trigger.request.test(chunk.toString('latin1'))) {
        if (trigger.skip > 0) trigger.skip--;
        else exchange = { trigger, requestBytes: 0, responseBytes: 0 };
      }
      server.write(chunk);
      if (exchange && trigger?.point.at === 'request') {
        exchange.requestBytes += chunk.length;
        // Whatever the client wrote before it died is still delivered (its kernel flushes the
        // socket), so the request side stays open: only the answer is never seen.
        if (exchange.requestBytes >= trigger.point.afterBytes) {
          this.fire(trigger);
          exchange = undefined;
        }
      }
    };
    client.on('data', (chunk: Buffer) => {
      const holding = this.holding;
      if (holding && (heldBy === holding || holding.request.test(chunk.toString('latin1')))) {
        heldBy = holding;
        holding.waiting.push(() => toServer(chunk));
        return;
      }
      toServer(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (frozen) return;
      const trigger = this.trigger;
      if (exchange?.trigger !== trigger) exchange = undefined;
      if (exchange && trigger?.point.at === 'response') {
        frozen = this.fire(trigger);
        return;
      }
      if (exchange && trigger?.point.at === 'response-sent') {
        this.trigger = undefined;
        client.write(chunk, () => {
          frozen = this.fire(trigger);
        });
        return;
      }
      if (exchange && trigger?.point.at === 'response-partial') {
        const room = trigger.point.afterBytes - exchange.responseBytes;
        if (room < chunk.length) {
          client.write(chunk.subarray(0, Math.max(0, room)));
          frozen = this.fire(trigger);
          return;
        }
        exchange.responseBytes += chunk.length;
      }
      client.write(chunk);
    });
  }

  private fire(trigger: Trigger): true {
    this.trigger = undefined;
    this.fired.push(trigger.name);
    trigger.fire();
    return true;
  }
}
