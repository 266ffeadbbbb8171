import path from 'node:path';
import express, { type RequestHandler } from 'express';

/** The stylesheets and the copy-button script every page links to. */
export const assetsDir = path.resolve(import.meta.dirname, '../assets');

/**
 * Where the pages link to them. Every app that serves pages serves the same files here (behind a
 * path-routing proxy `/oauth/` goes to the authorization server; an app alone serves its own copy).
 */
export const ASSETS_PATH = '/oauth/assets';

export const pageAssets = (): RequestHandler => express.static(assetsDir, { maxAge: '1h', index: false, fallthrough: false });
