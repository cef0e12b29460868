// Runs before every test file, in its module registry. Nest's own modules load first: a test file
// that reaches @nestjs/throttler (or another CommonJS Nest package) before them fails with
// "Cannot require() ES Module ... in a cycle" in jest's ESM mode.
import 'reflect-metadata';
import '@nestjs/common';
import '@nestjs/core';
