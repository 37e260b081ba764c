// Listing pages → the embedded data, without a DOM. Pure functions, no I/O.
export { extractPage, type PageData, type PageWant, type PageExtras } from './extract.js';
export { isBotWall, isBotWallBytes } from './bot-wall.js';
