import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Body,
  Controller,
  Get,
  type INestApplication,
  Module,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  type OpenAPIObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import {
  MAX_BIG_ID,
  MAX_ID,
  ParseBigIdPipe,
  ParseIdPipe,
  toInteger,
} from './common/http/params.js';
import { applyServiceConstraints, type OperationIdFactory } from './openapi-constraints.js';

/** A query DTO whose `@ApiProperty` says other limits than its validators: the validators win. */
class DriftingQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 5, maximum: 10 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(20)
  limit?: number;

  @ApiPropertyOptional({ maxLength: 3 })
  @IsOptional()
  @IsString()
  @MaxLength(8)
  @Matches(/^[a-z]+$/)
  name?: string;

  @ApiPropertyOptional({ enum: ['a', 'b', 'c'], isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @IsIn(['a', 'b'], { each: true })
  kinds?: string[];
}

/** A body class with validators, and a subclass that only inherits them (as CreateClientRequest). */
abstract class NamedBody {
  @ApiProperty({ maxLength: 3 })
  @IsString()
  @MaxLength(200)
  @Matches(/\S/)
  name!: string;
}

class CreateThingBody extends NamedBody {}

@Controller('things')
class ThingsController {
  @Get()
  @ApiOperation({ operationId: 'listThings' })
  list(@Query() query: DriftingQuery): DriftingQuery {
    return query;
  }

  @Post()
  create(@Body() body: CreateThingBody): CreateThingBody {
    return body;
  }

  @Get(':thingId/parts/:partId')
  part(
    @Param('thingId', ParseIdPipe) thingId: number,
    @Param('partId', ParseBigIdPipe) partId: number,
  ): number[] {
    return [thingId, partId];
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

const operationIdFactory: OperationIdFactory = (controllerKey, methodKey) =>
  `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;

type Param = { name: string; schema: Record<string, unknown> };

describe('applyServiceConstraints: query and path parameters', () => {
  let app: INestApplication;
  let document: OpenAPIObject;
  const parameters = (path: string) =>
    Object.fromEntries(
      (document.paths[path]!.get!.parameters as unknown as Param[]).map((p) => [p.name, p.schema]),
    );

  beforeAll(async () => {
    app = await NestFactory.create(ThingsModule, { logger: false });
    document = SwaggerModule.createDocument(
      app,
      { openapi: '3.1.0', info: { title: 't', version: '1' } },
      {
        operationIdFactory,
      },
    );
    applyServiceConstraints(document, app, operationIdFactory, { rateLimited: true });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a query parameter says what its validators check, not what its @ApiProperty said', () => {
    const query = parameters('/things');
    expect(query.limit).toMatchObject({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 20,
    });
    expect(query.name).toMatchObject({ type: 'string', maxLength: 8, pattern: '^[a-z]+$' });
    expect(query.kinds).toMatchObject({ type: 'array', minItems: 1, items: { enum: ['a', 'b'] } });
  });

  it('a path id says what its pipe takes: int32 for ParseIdPipe, int64 for ParseBigIdPipe', () => {
    const path = parameters('/things/{thingId}/parts/{partId}');
    expect(path.thingId).toMatchObject({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: MAX_ID,
    });
    expect(path.partId).toMatchObject({
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_BIG_ID,
    });
  });
});

describe('applyServiceConstraints: a body class that only inherits its validators', () => {
  it('takes them, and is closed', async () => {
    const app = await NestFactory.create(ThingsModule, { logger: false });
    try {
      const document = SwaggerModule.createDocument(
        app,
        { openapi: '3.1.0', info: { title: 't', version: '1' } },
        { operationIdFactory },
      );
      applyServiceConstraints(document, app, operationIdFactory, { rateLimited: true });
      const schema = document.components!.schemas!.CreateThingBody as Record<string, any>;
      expect(schema.properties.name).toMatchObject({ maxLength: 200, pattern: '\\S' });
      expect(schema.additionalProperties).toBe(false);
    } finally {
      await app.close();
    }
  });
});

describe('the id pipes', () => {
  const meta = { type: 'param' as const, data: 'id' };

  it('ParseBigIdPipe takes 1..2^53-1 and refuses the rest', () => {
    const pipe = new ParseBigIdPipe();
    expect(pipe.transform('2147483648', meta)).toBe(2 ** 31);
    expect(pipe.transform(String(MAX_BIG_ID), meta)).toBe(MAX_BIG_ID);
    for (const bad of ['0', '9007199254740992', '99999999999999999', '1.5', '-1', '', '1e3']) {
      expect(() => pipe.transform(bad, meta)).toThrow();
    }
  });

  it('ParseIdPipe stays 1..2^31-1', () => {
    const pipe = new ParseIdPipe();
    expect(pipe.transform(String(MAX_ID), meta)).toBe(MAX_ID);
    for (const bad of ['0', '2147483648', '00000000001']) {
      expect(() => pipe.transform(bad, meta)).toThrow();
    }
  });
});
