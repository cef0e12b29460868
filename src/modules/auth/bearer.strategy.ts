import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { CredentialsService } from './credentials.service.js';
import type { Principal } from '../../common/access/principal.js';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly credentials: CredentialsService) {
    super();
  }

  async validate(token: string): Promise<Principal | false> {
    return (await this.credentials.authenticate(token)) ?? false;
  }
}
