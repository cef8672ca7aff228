#!/usr/bin/env node
// `payments-sandbox`: npm links a package's commands before the repository's `prepare` builds dist/, and
// skips one whose file is missing (`npx payments-sandbox` then asks the public registry). This file exists
// from the start, so the link is made; the command is the compiled dist/bin.js.
import '../dist/bin.js';
