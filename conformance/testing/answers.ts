// Whether a server answers at an address: a TCP connection is accepted. What a test asks of a port before and
// after it stops a server.
import { connect } from 'node:net';

export function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
