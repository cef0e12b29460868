import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { CredentialsService } from './credentials.service.js';
import type { Principal } from '../../common/access/principal.js';
import type { HttpRequest } from '../../common/http/platform/http-platform.js';
import { countedAddress } from '../../common/http/client-address.js';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly credentials: CredentialsService) {
    // the request too: a look-up is counted against the address it came from
    super({ passReqToCallback: true });
  }

  async validate(req: HttpRequest, token: string): Promise<Principal | false> {
    return (
      (await this.credentials.authenticate(token, { caller: countedAddress(req), request: req })) ??
      false
    );
  }
}
