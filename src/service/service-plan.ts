/**
 * What `printrelay service <action>` does, as data: the files to write or copy and the commands
 * to run, in order. A service manager (winsw-service.ts, systemd-service.ts) turns an action
 * into a plan, purely; `--dry-run` prints the plan, otherwise runServicePlan carries it out.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PrintRelayError } from '../lib/errors.js';

/** The service commands. */
export const SERVICE_ACTIONS = ['install', 'uninstall', 'start', 'stop', 'status'] as const;
export type ServiceAction = (typeof SERVICE_ACTIONS)[number];

/** One step of a plan. */
export type ServiceStep =
  | { kind: 'mkdir'; path: string }
  | { kind: 'copy'; from: string; to: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'run'; command: string; args: string[]; mayFail?: boolean };

/** The steps of one action, in order. */
export interface ServicePlan {
  action: ServiceAction;
  steps: ServiceStep[];
}

/** Quotes an argument for display when it has spaces or quotes. Pure. */
function shown(arg: string): string {
  return /[\s"]/.test(arg) ? `"${arg.replace(/"/g, '\\"')}"` : arg;
}

/** The plan as text, one step per line, a written file's content after its line. Pure. */
export function formatServicePlan(plan: ServicePlan): string {
  const lines: string[] = [];
  for (const step of plan.steps) {
    if (step.kind === 'mkdir') lines.push(`mkdir ${shown(step.path)}`);
    else if (step.kind === 'copy') lines.push(`copy ${shown(step.from)} ${shown(step.to)}`);
    else if (step.kind === 'write')
      lines.push(
        `write ${shown(step.path)}`,
        ...step.content
          .trimEnd()
          .split('\n')
          .map((l) => `  | ${l}`),
      );
    else
      lines.push(
        `run ${[step.command, ...step.args].map(shown).join(' ')}${step.mayFail ? '  (failure ignored)' : ''}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** A command of a plan exited non-zero. */
export class ServiceCommandError extends PrintRelayError {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
  ) {
    super('service_command_failed', `${command} exited with code ${exitCode}`);
  }
}

/** Runs one command with the terminal's output; resolves with its exit code. */
function runCommand(command: string, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

/**
 * Carries out a plan; a failing command (other than a `mayFail` one) stops it with
 * ServiceCommandError. Resolves with the exit code of the last command (a status's answer).
 */
export async function runServicePlan(plan: ServicePlan, run = runCommand): Promise<number | null> {
  let last: number | null = 0;
  for (const step of plan.steps) {
    if (step.kind === 'mkdir') await mkdir(step.path, { recursive: true });
    else if (step.kind === 'copy') await copyFile(step.from, step.to);
    else if (step.kind === 'write') {
      await mkdir(dirname(step.path), { recursive: true });
      await writeFile(step.path, step.content);
    } else {
      last = await run(step.command, step.args);
      if (last !== 0 && !step.mayFail)
        throw new ServiceCommandError([step.command, ...step.args].join(' '), last);
    }
  }
  return last;
}
