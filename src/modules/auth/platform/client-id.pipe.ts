import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/http/app-error.js';

/** The public id of a client, `gci_` and 49 letters or digits. */
export const CLIENT_ID_PATTERN = /^gci_[0-9A-Za-z]{49}$/;

/** A path `clientId` that is not a client id at all is a 400, never a look-up. */
@Injectable()
export class ParseClientIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!CLIENT_ID_PATTERN.test(value)) {
      throw new ValidationFailedError([
        { field: metadata.data ?? 'clientId', message: 'must be a client id (gci_…)' },
      ]);
    }
    return value;
  }
}
