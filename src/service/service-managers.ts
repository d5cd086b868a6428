/**
 * The service managers `printrelay service` can drive, by name, and the platform's default:
 * WinSW on Windows, systemd elsewhere. The only place that looks at the platform for services.
 */
import { win32 } from 'node:path';
import type { ServiceAction, ServicePlan } from './service-plan.js';
import { systemdPlan } from './systemd-service.js';
import { type WindowsServiceSettings, winswPlan } from './winsw-service.js';

export const SERVICE_MANAGERS = ['winsw', 'systemd'] as const;
export type ServiceManagerName = (typeof SERVICE_MANAGERS)[number];

/** The manager of this platform. */
export function defaultServiceManager(platform: NodeJS.Platform = process.platform): ServiceManagerName {
  return platform === 'win32' ? 'winsw' : 'systemd';
}

/** Overrides of the Windows settings (flags); the rest comes from this installation. */
export type WindowsOverrides = Partial<Omit<WindowsServiceSettings, 'winsw' | 'home'>>;

/**
 * The Windows settings: flags first, then node.exe running this and this app; `home` is
 * %ProgramData%\PrintRelay unless a flag says otherwise. WinSW is the copy in the app's
 * node-windows package.
 */
export function windowsSettings(
  overrides: WindowsOverrides,
  appDir: string,
  home: string,
): WindowsServiceSettings {
  const app = overrides.appDir ?? appDir;
  return {
    node: overrides.node ?? process.execPath,
    appDir: app,
    home,
    config: overrides.config ?? win32.join(home, 'agent.yaml'),
    // node-windows is a direct dependency, so npm puts it right under the app's node_modules.
    winsw: win32.join(app, 'node_modules', 'node-windows', 'bin', 'winsw', 'winsw.exe'),
  };
}

/** The plan of an action under a manager. */
export function servicePlan(
  manager: ServiceManagerName,
  action: ServiceAction,
  windows: () => WindowsServiceSettings,
): ServicePlan {
  return manager === 'winsw' ? winswPlan(action, windows()) : systemdPlan(action);
}
