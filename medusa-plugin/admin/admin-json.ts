import { useEffect, useState } from 'react';

declare const __BACKEND_URL__: string | undefined;

/**
 * GETs one of the plugin's admin routes (`/admin/invoice-payments...`) with the admin's session, from Medusa's API
 * (`admin.backendUrl`, else the admin's own origin): `[body, error]`.
 */
export function useAdminJson<T>(path: string): [T | null, string | null] {
  const [state, setState] = useState<[T | null, string | null]>([null, null]);
  useEffect(() => {
    const base = typeof __BACKEND_URL__ === 'string' && __BACKEND_URL__ !== '/' ? __BACKEND_URL__ : '';
    fetch(`${base.replace(/\/$/, '')}/admin/invoice-payments${path}`, { credentials: 'include' })
      .then(async (res) => (res.ok ? setState([await res.json(), null]) : setState([null, `${res.status}`])))
      .catch((err: Error) => setState([null, err.message]));
  }, [path]);
  return state;
}
