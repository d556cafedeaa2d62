import { getCountry } from 'countries-and-timezones';

/** What a browser render presents for a country (SPEC: timezone and locale from the exit's country). */
export interface CountryGeo {
  timezoneId: string;
  locale: string;
}

/**
 * The zone most of a country's people live in, where the country has several; elsewhere the first
 * zone countries-and-timezones lists for it (docs/proxy-pools.md, "Browser renders").
 */
const MAIN_ZONE: Record<string, string> = {
  US: 'America/New_York',
  CA: 'America/Toronto',
  BR: 'America/Sao_Paulo',
  MX: 'America/Mexico_City',
  AR: 'America/Argentina/Buenos_Aires',
  CL: 'America/Santiago',
  RU: 'Europe/Moscow',
  AU: 'Australia/Sydney',
  NZ: 'Pacific/Auckland',
  CN: 'Asia/Shanghai',
  ID: 'Asia/Jakarta',
  KZ: 'Asia/Almaty',
  ES: 'Europe/Madrid',
  PT: 'Europe/Lisbon',
  DE: 'Europe/Berlin',
  UA: 'Europe/Kyiv',
  GB: 'Europe/London',
  FR: 'Europe/Paris',
  NL: 'Europe/Amsterdam',
  IN: 'Asia/Kolkata',
};

/** Timezone and locale for an ISO 3166-1 alpha-2 country, or null when it is not a known country. */
export function geoOf(country: string | null | undefined): CountryGeo | null {
  if (!country) return null;
  const code = country.toUpperCase();
  const known = getCountry(code as Parameters<typeof getCountry>[0]);
  if (!known || known.timezones.length === 0) return null;
  // CLDR's likely subtags: the language most spoken in the country (und-DE -> de-Latn-DE).
  const likely = new Intl.Locale(`und-${code}`).maximize();
  return { timezoneId: MAIN_ZONE[code] ?? known.timezones[0], locale: `${likely.language}-${code}` };
}
