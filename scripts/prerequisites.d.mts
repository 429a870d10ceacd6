/** One line of scripts/system-packages.txt. */
export interface SystemPackage {
  command: string;
  pkg: string;
  purpose: string;
}
export function readSystemPackages(file: string): SystemPackage[];
export function findTool(command: string, path: string): string | undefined;
export function checkSystemTools(packages: readonly SystemPackage[], path: string): SystemPackage[];
export function installCommand(packages: readonly SystemPackage[]): string;
