/** Set-up messages for humans: short, prefixed, on stderr so stdout stays for the service. */
export function say(message: string): void {
  process.stderr.write(`[setup] ${message}\n`);
}
