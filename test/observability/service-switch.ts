import net, { type AddressInfo, type Socket } from 'node:net';

/**
 * A real TCP server on loopback standing for the service: it passes every byte to and from `target` (the sandbox)
 * until told to hang; from then on it accepts connections and reads requests, old connections included, and never
 * answers, as a service that hangs does.
 */
export interface ServiceSwitch {
  url: string;
  hang(): void;
  answer(): void;
  /**
   * The request lines (`GET /invoices?limit=1 HTTP/1.1`) the hang holds: read while hanging, on a connection still
   * open, never answered. What a caller that waits on the service would be waiting for.
   */
  held(): string[];
  close(): Promise<void>;
}

export async function startServiceSwitch(target: string): Promise<ServiceSwitch> {
  const { hostname, port } = new URL(target);
  let hanging = false;
  const sockets = new Set<Socket>();
  /** Per open client connection, the first request line it sent during the hang (gone once it closes). */
  const holding = new Map<Socket, string>();
  const server = net.createServer((client) => {
    let upstream: Socket | null = null;
    const open = (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy());
      return socket;
    };
    open(client).on('close', () => {
      holding.delete(client);
      upstream?.destroy();
    });
    client.on('data', (chunk: Buffer) => {
      if (hanging) {
        // Read, and never answered.
        if (!holding.has(client)) holding.set(client, chunk.toString('latin1').split('\r\n')[0]);
        return;
      }
      holding.delete(client);
      upstream ??= open(net.connect(Number(port), hostname))
        .on('data', (answer: Buffer) => client.write(answer))
        .on('close', () => client.destroy());
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hang: () => (hanging = true),
    answer: () => (hanging = false),
    held: () => [...holding.values()],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
