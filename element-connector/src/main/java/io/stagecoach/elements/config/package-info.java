/**
 * Typed configuration: {@link io.stagecoach.elements.config.Definition} constants grouped in
 * {@link io.stagecoach.elements.config.ModuleDefinitions}, immutable
 * {@link io.stagecoach.elements.config.Configuration} values built from defaults, properties
 * files, system properties and code (in that order of precedence), and generated Markdown docs.
 */
package io.stagecoach.elements.config;
