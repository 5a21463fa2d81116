import { DemoStoreOrders1763800000000 } from './1763800000000-DemoStoreOrders';

/** The demo store's own migrations, run after the module's. */
export const DEMO_STORE_MIGRATIONS = [DemoStoreOrders1763800000000];
