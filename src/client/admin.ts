/** The admin client moved to src/client/admin/ (one file per concern); this path stays for existing imports. */
export * from './admin/index.js';
