// Nothing global yet: each suite starts (on port 0) and stops what it needs.
export default async function globalSetup(): Promise<void> {}
