/** When this process (the core) started. */
export const SERVICE_STARTED_AT = new Date().toISOString();
