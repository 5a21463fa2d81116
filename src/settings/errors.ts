/** Two admins saved at once and this save lost every retry. Over the admin API: 409. */
export class SettingsConflictError extends Error {
  constructor() {
    super('the settings were changed by someone else at the same time; try again');
    this.name = 'SettingsConflictError';
  }
}

/** A key or stored secret that cannot be used; messages name the key id and field, never key or secret. */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}
