// The accounts of the browser tests, created by global-setup.mjs with `runlens user add`
// before the server starts (admin is bootstrapped from RUNLENS_ADMIN_PASSWORD). Test data
// only: these passwords guard a throwaway server on a loopback port.
export const ADMIN = { username: 'admin', password: 'e2e-admin-pw-7Qm2' };

/** alice owns the seeded experiments; bob and carol start with access to none of them. */
export const USERS = {
  alice: { username: 'alice', password: 'e2e-alice-pw-3Kx9' },
  bob: { username: 'bob', password: 'e2e-bob-pw-8Vt4' },
  carol: { username: 'carol', password: 'e2e-carol-pw-5Wz1' },
  // Used only by the rate-limit check, which locks this account out for five minutes.
  dave: { username: 'dave', password: 'e2e-dave-pw-2Hn6' },
};

/** Every secret the server was given: none may appear in a response body or in its log. */
export const SECRETS = [ADMIN, ...Object.values(USERS)].map((u) => u.password);
