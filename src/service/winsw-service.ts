/**
 * The agent as a Windows service, hosted by WinSW. Why WinSW: a Windows service must answer the
 * service control manager, which node.exe cannot, so `sc.exe create` alone is not enough; some
 * host process is needed, and WinSW is the established one (rotating logs of the child's
 * output, restart on failure, Ctrl+C then a kill after `stoptimeout` on stop, its own events in
 * the Application event log). We take its executable from the node-windows package (the npm
 * registry's copy of WinSW) but not node-windows' own wrapper script, and write the service
 * definition ourselves, so what gets installed is exactly the golden file the tests check.
 * Paths here are Windows paths whatever the platform, so the definition is testable anywhere.
 */
import { win32 } from 'node:path';
import { AGENT_NODE_FLAGS } from './agent-node-flags.js';
import type { ServiceAction, ServicePlan, ServiceStep } from './service-plan.js';

/** The service's id: the service name, and the base name of WinSW's .exe and .xml. */
export const WINDOWS_SERVICE_ID = 'printrelay-agent';

/** Where things are on the Windows machine. */
export interface WindowsServiceSettings {
  /** node.exe that runs the agent. */
  node: string;
  /** The installed application: bin\printrelay.js is in here. */
  appDir: string;
  /** %ProgramData%\PrintRelay: agent.yaml, state, logs\ and service\. */
  home: string;
  /** The agent's configuration file. */
  config: string;
  /** winsw.exe to copy in (from the node-windows package). */
  winsw: string;
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The service's directory: WinSW's .exe and .xml. */
export function serviceDir(settings: WindowsServiceSettings): string {
  return win32.join(settings.home, 'service');
}

/** The WinSW definition (printrelay-agent.xml). Pure. */
export function winswDefinition(s: WindowsServiceSettings): string {
  const script = win32.join(s.appDir, 'bin', 'printrelay.js');
  const args = [...AGENT_NODE_FLAGS, script, 'agent', '--config', s.config];
  args.push('--data-dir', s.home, '--no-pretty', '--event-log');
  const lines = [
    '<!-- PrintRelay agent as a Windows service (WinSW). Written by printrelay service install. -->',
    '<service>',
    `  <id>${WINDOWS_SERVICE_ID}</id>`,
    '  <name>PrintRelay Agent</name>',
    '  <description>PrintRelay print connector and release-station agent.</description>',
    `  <executable>${escapeXml(s.node)}</executable>`,
    ...args.map((a) => `  <argument>${escapeXml(a)}</argument>`),
    `  <workingdirectory>${escapeXml(s.home)}</workingdirectory>`,
    '  <env name="NODE_ENV" value="production"/>',
    '  <startmode>Automatic</startmode>',
    '  <depend>Spooler</depend>',
    '  <!-- The agent drains in-flight jobs on Ctrl+C and exits within 30 s. -->',
    '  <stoptimeout>40 sec</stoptimeout>',
    '  <onfailure action="restart" delay="10 sec"/>',
    '  <onfailure action="restart" delay="60 sec"/>',
    '  <resetfailure>1 hour</resetfailure>',
    `  <logpath>${escapeXml(win32.join(s.home, 'logs'))}</logpath>`,
    '  <log mode="roll-by-size">',
    '    <sizeThreshold>10240</sizeThreshold>',
    '    <keepFiles>8</keepFiles>',
    '  </log>',
    '</service>',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Well-known SIDs (the same on every Windows, whatever its language): LocalSystem, which the
 * service runs as, and the local Administrators group.
 */
export const SYSTEM_SID = '*S-1-5-18';
export const ADMINISTRATORS_SID = '*S-1-5-32-544';

/**
 * The icacls commands that make `home` private: first every file and folder in it goes back to
 * inheriting (`/reset /T`), then `home` stops inheriting from %ProgramData% (where local users
 * may read) and grants full control to SYSTEM and Administrators only, which everything in it
 * inherits. A file mode of 0600 means nothing on Windows; this is what keeps tokens and
 * secrets from other local users. Pure.
 */
export function privateDirCommands(home: string): ServiceStep[] {
  const grant = (sid: string) => `${sid}:(OI)(CI)F`;
  return [
    { kind: 'run', command: 'icacls', args: [home, '/reset', '/T', '/C', '/Q'] },
    {
      kind: 'run',
      command: 'icacls',
      args: [home, '/inheritance:r', '/grant:r', grant(SYSTEM_SID), grant(ADMINISTRATORS_SID), '/Q'],
    },
  ];
}

/** The steps of one service action under WinSW. Pure. */
export function winswPlan(action: ServiceAction, s: WindowsServiceSettings): ServicePlan {
  const dir = serviceDir(s);
  const exe = win32.join(dir, `${WINDOWS_SERVICE_ID}.exe`);
  const run = (verb: string, mayFail = false) => ({
    kind: 'run' as const,
    command: exe,
    args: [verb],
    mayFail,
  });
  if (action === 'install') {
    return {
      action,
      steps: [
        { kind: 'mkdir', path: win32.join(s.home, 'logs') },
        { kind: 'mkdir', path: dir },
        ...privateDirCommands(s.home),
        { kind: 'copy', from: s.winsw, to: exe },
        { kind: 'copy', from: `${s.winsw}.config`, to: `${exe}.config` },
        { kind: 'write', path: win32.join(dir, `${WINDOWS_SERVICE_ID}.xml`), content: winswDefinition(s) },
        run('install'),
        run('start'),
      ],
    };
  }
  if (action === 'uninstall') return { action, steps: [run('stop', true), run('uninstall')] };
  return { action, steps: [run(action, action === 'status')] };
}
