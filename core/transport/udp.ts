// Sockets only: bind, broadcast flag, send, close. Bind failures become coded errors; a socket error
// after bind is reported, never thrown into the host process.

import dgram from 'node:dgram';
import { LightwireError } from '../errors.js';

export interface RemoteAddress {
  readonly address: string;
  readonly port: number;
}

export type DatagramHandler = (datagram: Buffer, from: RemoteAddress) => void;

/** What the requester needs from a socket; tests substitute an in-memory one. */
export interface DatagramEndpoint {
  readonly port: number;
  send(datagram: Buffer, port: number, address: string): Promise<void>;
  onDatagram(handler: DatagramHandler): void;
  close(): Promise<void>;
}

export interface UdpEndpointOptions {
  readonly bindAddress: string;
  readonly bindPort: number;
  readonly receiveBufferBytes: number;
  readonly onError?: (err: Error) => void;
}

export class UdpEndpoint implements DatagramEndpoint {
  private handler: DatagramHandler = () => undefined;
  private closed = false;

  private constructor(
    private readonly socket: dgram.Socket,
    readonly port: number,
  ) {}

  static async open(options: UdpEndpointOptions): Promise<UdpEndpoint> {
    const socket = dgram.createSocket({ type: 'udp4', reuseAddr: false });
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        socket.close();
        const where = { address: options.bindAddress, port: options.bindPort };
        reject(
          err.code === 'EADDRINUSE'
            ? new LightwireError('ADDRESS_IN_USE', where)
            : new LightwireError('ADDRESS_UNAVAILABLE', { ...where, reason: err.message }),
        );
      };
      socket.once('error', onError);
      socket.bind({ address: options.bindAddress, port: options.bindPort, exclusive: true }, () => {
        socket.off('error', onError);
        resolve();
      });
    });
    socket.setBroadcast(true);
    if (options.receiveBufferBytes > 0) {
      try {
        socket.setRecvBufferSize(options.receiveBufferBytes);
      } catch {
        // The kernel caps it (net.core.rmem_max); the default buffer still works for small fleets.
      }
    }
    const endpoint = new UdpEndpoint(socket, socket.address().port);
    socket.on('message', (datagram, rinfo) => {
      try {
        endpoint.handler(datagram, { address: rinfo.address, port: rinfo.port });
      } catch (err) {
        options.onError?.(err as Error);
      }
    });
    socket.on('error', (err) => options.onError?.(err));
    return endpoint;
  }

  send(datagram: Buffer, port: number, address: string): Promise<void> {
    if (this.closed) return Promise.reject(new LightwireError('CLIENT_STOPPED', {}));
    return new Promise((resolve, reject) => {
      this.socket.send(datagram, port, address, (err) => (err ? reject(err) : resolve()));
    });
  }

  onDatagram(handler: DatagramHandler): void {
    this.handler = handler;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
