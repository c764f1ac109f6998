// The core namespaces: every command of each, and which commands its `default` set holds. Each
// command gets `core:<ns>:allow-<cmd>` and `core:<ns>:deny-<cmd>`; `core:default` is the nine
// namespace defaults. Commands are invoked as `plugin:<ns>|<command>` (no `core:`).

interface NamespaceData {
  /** Every command, in the reference implementation's order. */
  commands: string[]
  /** Members of the default set; 'all' when every command is in it. */
  defaults: string[] | 'all'
}

export const CORE_NAMESPACES: Readonly<Record<string, NamespaceData>> = Object.freeze({
  app: {
    commands: [
      'version', 'name', 'framework_version', 'identifier', 'bundle_type', 'register_listener', 'remove_listener',
      'app_show', 'app_hide', 'default_window_icon', 'set_app_theme', 'fetch_data_store_identifiers', 'remove_data_store', 'set_dock_visibility',
    ],
    defaults: ['version', 'name', 'framework_version', 'identifier', 'bundle_type', 'register_listener', 'remove_listener'],
  },
  event: { commands: ['listen', 'unlisten', 'emit', 'emit_to'], defaults: 'all' },
  image: { commands: ['new', 'from_bytes', 'from_path', 'rgba', 'size'], defaults: 'all' },
  menu: {
    commands: [
      'new', 'append', 'prepend', 'insert', 'remove', 'remove_at', 'items', 'get', 'popup', 'create_default', 'set_as_app_menu',
      'set_as_window_menu', 'text', 'set_text', 'is_enabled', 'set_enabled', 'set_accelerator', 'set_as_windows_menu_for_nsapp',
      'set_as_help_menu_for_nsapp', 'is_checked', 'set_checked', 'set_icon',
    ],
    defaults: 'all',
  },
  path: { commands: ['resolve_directory', 'resolve', 'normalize', 'join', 'dirname', 'extname', 'basename', 'is_absolute'], defaults: 'all' },
  resources: { commands: ['close'], defaults: 'all' },
  tray: {
    commands: [
      'new', 'get_by_id', 'remove_by_id', 'set_icon', 'set_menu', 'set_tooltip', 'set_title', 'set_visible', 'set_temp_dir_path',
      'set_icon_as_template', 'set_show_menu_on_left_click',
    ],
    defaults: 'all',
  },
  webview: {
    commands: [
      'get_all_webviews', 'webview_position', 'webview_size', 'internal_toggle_devtools', 'create_webview', 'create_webview_window',
      'webview_close', 'set_webview_size', 'set_webview_position', 'set_webview_focus', 'set_webview_auto_resize', 'set_webview_zoom',
      'webview_hide', 'webview_show', 'print', 'reparent', 'clear_all_browsing_data', 'set_webview_background_color',
    ],
    defaults: ['get_all_webviews', 'webview_position', 'webview_size', 'internal_toggle_devtools'],
  },
  window: {
    commands: [
      // The default set: every getter plus the internal maximize toggle.
      'get_all_windows', 'scale_factor', 'inner_position', 'outer_position', 'inner_size', 'outer_size', 'is_fullscreen', 'is_minimized',
      'is_maximized', 'is_focused', 'is_decorated', 'is_resizable', 'is_maximizable', 'is_minimizable', 'is_closable', 'is_visible',
      'is_enabled', 'title', 'current_monitor', 'primary_monitor', 'monitor_from_point', 'available_monitors', 'cursor_position', 'theme',
      'is_always_on_top', 'internal_toggle_maximize',
      // Everything else needs an explicit allow-….
      'create', 'center', 'request_user_attention', 'set_enabled', 'set_resizable', 'set_maximizable', 'set_minimizable', 'set_closable',
      'set_title', 'maximize', 'unmaximize', 'minimize', 'unminimize', 'show', 'hide', 'close', 'destroy', 'set_decorations', 'set_shadow',
      'set_effects', 'set_always_on_top', 'set_always_on_bottom', 'set_visible_on_all_workspaces', 'set_content_protected', 'set_size',
      'set_min_size', 'set_size_constraints', 'set_max_size', 'set_position', 'set_fullscreen', 'set_focus', 'set_skip_taskbar',
      'set_cursor_grab', 'set_cursor_visible', 'set_cursor_icon', 'set_cursor_position', 'set_ignore_cursor_events', 'start_dragging',
      'start_resize_dragging', 'set_progress_bar', 'set_badge_count', 'set_overlay_icon', 'set_badge_label', 'set_icon',
      'set_title_bar_style', 'set_theme', 'toggle_maximize', 'set_background_color',
    ],
    defaults: [
      'get_all_windows', 'scale_factor', 'inner_position', 'outer_position', 'inner_size', 'outer_size', 'is_fullscreen', 'is_minimized',
      'is_maximized', 'is_focused', 'is_decorated', 'is_resizable', 'is_maximizable', 'is_minimizable', 'is_closable', 'is_visible',
      'is_enabled', 'title', 'current_monitor', 'primary_monitor', 'monitor_from_point', 'available_monitors', 'cursor_position', 'theme',
      'is_always_on_top', 'internal_toggle_maximize',
    ],
  },
})

/** The namespaces whose defaults make up `core:default`, in the spec's order. */
export const CORE_DEFAULT_MEMBERS = ['path', 'event', 'window', 'webview', 'app', 'image', 'resources', 'menu', 'tray'] as const
