export { startService, type RunningService } from './service';
export { seedDemo, demoBanner, type DemoSeed } from './seed';
