import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  BUILT_IN_DEFAULTS,
  ModuleOptionPath,
  SETTINGS,
  SETTING_LIST,
} from '../../src/options/settings.schema';
import { settingFields, UpdateSettingsDto } from '../../src/settings/settings.dto';
import { resolveCheckoutOptions } from '../../src/options/checkout.options';

/** Each setting is declared once; the module options, the admin API and the admin page all follow the declaration. */
describe('the settings schema', () => {
  const adminErrors = (body: object) =>
    validateSync(plainToInstance(UpdateSettingsDto, body)).flatMap((e) => Object.values(e.constraints ?? {}));

  it.each(SETTING_LIST.filter(([, d]) => d.kind === 'int').map(([name]) => name))(
    'bounds %s the same in the module options and in the admin API',
    (name) => {
      const { min, max, option } = SETTINGS[name as 'maxInstallments'];
      const checkout = option[1];
      for (const ok of [min, max]) {
        expect(() => resolveCheckoutOptions({ [checkout]: ok })).not.toThrow();
        expect(adminErrors({ [name]: ok })).toEqual([]);
      }
      for (const bad of [min - 1, max + 1]) {
        expect(() => resolveCheckoutOptions({ [checkout]: bad })).toThrow(
          `checkout.${checkout} must be an integer from ${min} to ${max}`,
        );
        expect(adminErrors({ [name]: bad })).toHaveLength(1);
      }
    },
  );

  it('gives every setting its built-in default, and the admin page every setting with texts in both languages', () => {
    expect(Object.keys(BUILT_IN_DEFAULTS).sort()).toEqual(Object.keys(SETTINGS).sort());
    expect(BUILT_IN_DEFAULTS.maxInstallments).toBe(SETTINGS.maxInstallments.default);
    const fields = settingFields();
    expect(fields.map((f) => f.name)).toEqual(Object.keys(SETTINGS));
    for (const field of fields) {
      for (const text of [field.label.en, field.label.pt, field.help.en, field.help.pt]) {
        expect(text.trim().length).toBeGreaterThan(0);
        expect(text).not.toMatch(/\{(min|max)\}/);
      }
    }
    const installments = fields.find((f) => f.name === 'maxInstallments');
    expect(installments).toMatchObject({ type: 'int', min: 1, max: 12 });
    expect(installments?.help.en).toContain('(1 to 12)');
    expect(fields.find((f) => f.name === 'accessToken')).toMatchObject({ secret: true });
  });

  it('names module options that the options declaration has (a view of it, checked by the compiler)', () => {
    // @ts-expect-error a key the checkout section does not declare
    const misspelt: ModuleOptionPath = ['checkout', 'dueDay'];
    // @ts-expect-error a section no runtime setting takes its default from
    const otherSection: ModuleOptionPath = ['shipping', 'pollIntervalMs'];
    expect([misspelt, otherSection]).toHaveLength(2);
    const resolved = resolveCheckoutOptions();
    for (const [, declaration] of SETTING_LIST) {
      if (declaration.option?.[0] === 'checkout')
        expect(Object.keys(resolved)).toContain(declaration.option[1]);
    }
  });
});
