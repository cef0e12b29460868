import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { PlatformKeyPrincipal } from '../modules/platform-keys/platform-keys.service.js';
import { PlatformKeyVerifier } from './platform-key-verifier.js';

/** passport-http-bearer for the platform API: a `gpk_…` key instead of a tenant's token. */
@Injectable()
export class PlatformKeyStrategy extends PassportStrategy(Strategy, 'platform-key') {
  constructor(private readonly keys: PlatformKeyVerifier) {
    super();
  }

  async validate(token: string): Promise<PlatformKeyPrincipal | false> {
    return (await this.keys.verify(token)) ?? false;
  }
}
