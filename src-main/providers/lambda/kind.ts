/** The kind of Lambda Cloud leases: `lambda:<instance id>`. */
export const PROVIDER = 'lambda';
