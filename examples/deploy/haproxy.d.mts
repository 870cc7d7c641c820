/** Types of ./haproxy.mjs (for the benchmark, which imports it). */
export function haproxyConfig(bind: number, replicas: number[], opts?: { host?: string; checkPath?: string }): string;
