/**
 * The console's page at /_emulator/: a static frame (no data in it; the script fetches the
 * snapshot and its live updates with the reader's rights) with an inline style sheet and one
 * script from /_emulator/console.js, so a strict Content-Security-Policy holds. Nothing to build.
 */

/** The Content-Security-Policy of the page: its own script, inline style, its own origin only. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.4; }
body { margin: 0 auto; padding: 1rem; max-width: 90rem; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: baseline; }
h1 { font-size: 1.4rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { text-align: left; padding: 0.2rem 0.5rem; border-bottom: 1px solid #8884; vertical-align: top; }
.empty { color: #888; font-style: italic; }
.live { font-size: 0.85rem; color: #888; }
.bad { color: #b00020; }
form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: flex-start; margin: 0.5rem 0; }
textarea { font-family: ui-monospace, monospace; width: 36rem; max-width: 100%; height: 4.5rem; }
input, button, textarea { font: inherit; }
#message { min-height: 1.4em; }
`;

/** The console's HTML document. */
export function renderConsolePage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Console - PrintRelay emulator</title>
<style>${CSS}</style>
<script src="/_emulator/console.js" defer></script>
</head>
<body>
<header>
  <h1>PrintRelay emulator console</h1>
  <span class="live" id="live">connecting...</span>
  <span id="clock"></span>
</header>
<form id="token-form">
  <label>Admin token (only needed away from the emulator's machine)
    <input id="token" type="password" autocomplete="off" size="40"></label>
  <button type="submit">Use</button>
</form>
<p id="message" role="status"></p>
<main id="sections"></main>
<h2>Test clock</h2>
<form id="clock-form">
  <label>Advance by <input id="advance" type="number" min="0" step="1" value="3600" size="8"> seconds</label>
  <button type="submit">Advance</button>
</form>
<h2>Add a fault rule</h2>
<form id="fault-form">
  <textarea id="fault" aria-label="fault rule (JSON)">{"operation": "Print", "respond": {"status": 503}, "times": 1}</textarea>
  <button type="submit">Add</button>
  <button type="button" id="clear-faults">Remove all</button>
</form>
</body>
</html>
`;
}
