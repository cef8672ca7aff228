// The merchant endpoint of `npm run bench`, in a process of its own: it acknowledges every callback the
// sandboxes send, and prints the port it listens on. Served from the process generating the load, the
// callbacks took that process's time from the sandbox's requests only (Prism sends none).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
