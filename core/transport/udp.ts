// Sockets only: bind, broadcast flag, send, close. Bind failures become coded errors; a socket error
// after bind is reported, never thrown into the host process.

import dgram from 'node:dgram';
import { dns, isIPv4 } from '../builtins.js';
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
  /**
   * Fire and forget: hands the datagram to the socket and reports nothing, a failed send being a lost packet. For the
   * requester's hot path (it retransmits anyway); endpoints without it are used through send().
   */
  post?(datagram: Buffer, port: number, address: string): void;
  onDatagram(handler: DatagramHandler): void;
  close(): Promise<void>;
}

export interface UdpEndpointOptions {
  readonly bindAddress: string;
  readonly bindPort: number;
  readonly receiveBufferBytes: number;
  readonly onError?: (err: Error) => void;
}

/**
 * dgram resolves every destination, even an IP literal, through dns.lookup, which answers on the next tick: an extra
 * tick, closure and async context per datagram. Destinations here are IPv4 addresses; they are answered at once, and
 * anything else still goes to dns.lookup.
 */
const lookupIpv4: NonNullable<dgram.SocketOptions['lookup']> = (hostname, options, callback) => {
  if (isIPv4(hostname)) callback(null, hostname, 4);
  else dns().lookup(hostname, options, callback);
};

function ignoreSendResult(): void {
  // post(): a failed send is a lost packet, which the requester's retransmissions cover.
}

export class UdpEndpoint implements DatagramEndpoint {
  private handler: DatagramHandler = () => undefined;
  private closed = false;

  private constructor(
    private readonly socket: dgram.Socket,
    readonly port: number,
  ) {}

  static async open(options: UdpEndpointOptions): Promise<UdpEndpoint> {
    const socket = dgram.createSocket({ type: 'udp4', reuseAddr: false, lookup: lookupIpv4 });
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
        // Node's rinfo is a RemoteAddress already (address, port; family and size besides): no copy per datagram.
        endpoint.handler(datagram, rinfo);
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

  post(datagram: Buffer, port: number, address: string): void {
    if (this.closed) return;
    try {
      // Without a callback dgram drops send errors silently and skips a tick per datagram; only a failed name lookup
      // would become a socket 'error' event, so anything but an IPv4 literal keeps a callback.
      if (isIPv4(address)) this.socket.send(datagram, port, address);
      else this.socket.send(datagram, port, address, ignoreSendResult);
    } catch {
      // A socket closing under us: the packet is lost, like any other.
    }
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
