// The scheduling variants of evolving applications by name. A new variant is an FpeVariant plus one line here (and its
// name in FPE_VARIANTS, which this Record's type enforces).
import {
  FPE_VARIANTS,
  infX,
  infXc,
  noX,
  rigid,
  twoX,
  twoXc,
  type FpeVariant,
  type FpeVariantName,
} from './variants.js';

export const fpeVariants: Readonly<Record<FpeVariantName, FpeVariant>> = Object.freeze({
  rigid,
  noX,
  '2X': twoX,
  '2X+c': twoXc,
  infX,
  'infX+c': infXc,
});

/** The variant with this name, or undefined for a name no variant has. */
export function fpeVariant(name: string): FpeVariant | undefined {
  return Object.hasOwn(fpeVariants, name) ? fpeVariants[name as FpeVariantName] : undefined;
}

export { FPE_VARIANTS, type FpeVariant, type FpeVariantName };
