// Every domain module, in registration order. Each folder owns its routes, schemas, rules and SQL.
import type { Module } from "../context.ts";
import { accountsModule } from "./accounts/index.ts";
import { appApiModule } from "./app-api/index.ts";
import { botModule } from "./bot/index.ts";
import { brandingModule } from "./branding/index.ts";
import { cannedRepliesModule } from "./canned-replies/index.ts";
import { channelsModule } from "./channels/index.ts";
import { contactsModule } from "./contacts/index.ts";
import { conversationsModule } from "./conversations/index.ts";
import { creditsModule } from "./credits/index.ts";
import { deliveryModule } from "./delivery/index.ts";
import { exportsModule } from "./exports/index.ts";
import { importsModule } from "./imports/index.ts";
import { knowledgeModule } from "./knowledge/index.ts";
import { listsModule } from "./lists/index.ts";
import { messagingModule } from "./messaging/index.ts";
import { notesModule } from "./notes/index.ts";
import { notificationsModule } from "./notifications/index.ts";
import { operationsModule } from "./operations/index.ts";
import { outgoingModule } from "./outgoing/index.ts";
import { reportsModule } from "./reports/index.ts";

export const MODULES: Module[] = [
  accountsModule,
  contactsModule,
  conversationsModule,
  listsModule,
  messagingModule,
  deliveryModule,
  notificationsModule,
  notesModule,
  cannedRepliesModule,
  knowledgeModule,
  botModule,
  creditsModule,
  reportsModule,
  importsModule,
  outgoingModule,
  channelsModule,
  exportsModule,
  brandingModule,
  // The web app's door, after the domains it calls.
  appApiModule,
  operationsModule,
];
