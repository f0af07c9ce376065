// Going to another view from inside one (a cluster card's link to its jobs in the Queue): the frame (App.vue)
// provides how, components inject it. Without a frame (a view mounted alone in a test) there is no link.
import type { InjectionKey } from 'vue';

export type Navigate = (view: string) => void;
export const NAVIGATE: InjectionKey<Navigate> = Symbol('concertina-navigate');
