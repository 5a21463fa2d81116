import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsTimeZone,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';
import { PAYMENT_METHODS, SETTING_LIST, type SettingDeclaration } from '../options/settings.schema';
import { IsHttpUrl, IsIntIn, IsOneOf, IsPlainText } from './admin-validators';
import type { SettingsUpdate } from './settings.mapping';

/** The `ecommerce` columns are 32-bit `integer`s on PostgreSQL. */
const MAX_ECOMMERCE_ID = 2_147_483_647;

class EcommerceDto {
  @IsIntIn(1, MAX_ECOMMERCE_ID)
  storeId!: number;

  @IsIntIn(1, MAX_ECOMMERCE_ID)
  checkout!: number;
}

/** Body of `PUT /settings`: an absent field is left as it is, `null` resets it to the module options' default. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- checked per setting below
export interface UpdateSettingsDto extends SettingsUpdate {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateSettingsDto {}

/** What a kind leaves to the setting: a secret's length and characters. */
const SECRETS: Record<string, [max: number, allowed: RegExp, refused: string]> = {
  // A bearer token has no white space (RFC 6750 b64token); a line break would also split the header.
  accessToken: [2048, /^\S+$/, 'spaces'],
  webhookToken: [256, /^[^\s:]+$/, 'spaces or ":" (the token separator)'],
};

type Checks = (name: string, declaration: SettingDeclaration<unknown>) => PropertyDecorator[];

/** The checks of each kind of setting, top first as if stacked on the property. */
const CHECKS: Record<SettingDeclaration<unknown>['kind'], Checks> = {
  mode: () => [IsOneOf(['sandbox', 'production'])],
  secret: (name) => {
    const [max, allowed, refused] = SECRETS[name];
    return [
      IsString({ message: `${name} must be a string` }),
      IsPlainText(),
      Length(1, max, { message: `${name} must be 1 to ${max} characters` }),
      Matches(allowed, { message: `${name} must not contain ${refused}` }),
    ];
  },
  methods: (name) => [
    IsArray({ message: `${name} must be a list of pix, billet, card` }),
    ArrayMinSize(1, { message: `${name} must name at least one method` }),
    ArrayUnique({ message: `${name} must not repeat a method` }),
    IsIn(PAYMENT_METHODS, { each: true, message: `${name} may only hold pix, billet, card` }),
  ],
  int: (_, { min, max }) => [IsIntIn(min ?? 0, max ?? Number.MAX_SAFE_INTEGER)],
  url: () => [IsHttpUrl()],
  text: (name) => [
    name === 'timeZone'
      ? IsTimeZone({ message: '$property must be an IANA time zone such as America/Sao_Paulo' })
      : IsHttpUrl({ template: true }),
  ],
  ecommerce: () => [ValidateNested(), Type(() => EcommerceDto)],
  // Checked part by part by `checkWireProfileData`.
  json: (name) => [IsObject({ message: `${name} must be an object (wire-profile overrides) or null` })],
};

for (const [name, declaration] of SETTING_LIST) {
  const checks = [IsOptional(), ...CHECKS[declaration.kind](name, declaration)];
  // Bottom up, as stacked decorators register.
  for (const check of checks.reverse()) check(UpdateSettingsDto.prototype, name);
}
