import path from 'node:path';
import { createPageRenderer } from '@loupe/web-pages';

/** The console's pages, in the layout every page shares. */
export const { renderPage, renderErrorPage } = createPageRenderer(path.resolve(import.meta.dirname, '../views'));
