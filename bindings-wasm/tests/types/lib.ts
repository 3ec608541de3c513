// Both entries' declarations (index.d.ts, forms.d.ts and what they import) as a user compiles
// them with the default libraries of a target and nothing else: `lib: ["es2022"]` (a Node
// project without DOM) and `lib: ["es2022", "dom"]` (a page), `skipLibCheck: false`, no
// @types. Nothing here may need a newer lib (the disposable symbol, esnext collections): types.sh
// compiles this file alone under each.
import * as full from 'xborder-wasm';
import { init, validateBeneficiary, BeneficiaryValidator, XborderError } from 'xborder-wasm/forms';
import type { Validation } from 'xborder-wasm/forms';

export async function check(draft: Record<string, unknown>): Promise<boolean> {
  await init();
  const validation: Validation = validateBeneficiary(draft);
  const validator = new BeneficiaryValidator();
  const again: Validation = validator.validate(draft);
  validator.free();
  return validation.valid && again.valid;
}

export function code(e: unknown): string | undefined {
  return e instanceof XborderError || e instanceof full.XborderError ? e.code : undefined;
}
