;;; tracepilot-dap.el --- tracepilot as a dap-mode debug provider  -*- lexical-binding: t -*-

;; Works with dap-mode 0.7 on Emacs 28 (Debian 12: apt install elpa-dap-mode). Load it from your init file
;; (load "/path/to/tracepilot-dap.el"), then M-x dap-debug and pick a "tracepilot" template, or copy the
;; templates below and change mainClass, classPaths, sourcePaths, hostName and port to your project's.

;;; Code:

(require 'dap-mode)

;; dap-mode shows only "stdout" and "stderr" output by default; nil shows every category, the adapter's
;; own notes ("console", "important") included. (Logpoint lines come as "stdout": shown either way.)
(setq dap-output-buffer-filter nil)

(defun tracepilot-dap--populate (conf)
  "Start `tracepilot dap' on stdio for CONF."
  (plist-put conf :dap-server-path '("tracepilot" "dap")))

(defun tracepilot-dap--populate-join (conf)
  "Start `tracepilot dap --join' on stdio for CONF: follow and take part in a live shared session."
  (plist-put conf :dap-server-path '("tracepilot" "dap" "--join")))

(dap-register-debug-provider "tracepilot" #'tracepilot-dap--populate)
(dap-register-debug-provider "tracepilot-join" #'tracepilot-dap--populate-join)

(dap-register-debug-template
 "tracepilot: launch com.acme.Main"
 (list :type "tracepilot" :request "launch" :name "tracepilot: launch com.acme.Main"
       :mainClass "com.acme.Main" :classPaths ["target/classes"] :sourcePaths ["src/main/java"]))

(dap-register-debug-template
 "tracepilot: attach localhost:5005"
 (list :type "tracepilot" :request "attach" :name "tracepilot: attach localhost:5005"
       :hostName "127.0.0.1" :port 5005 :sourcePaths ["src/main/java"]))

(dap-register-debug-template
 "tracepilot: join the agent's session"
 (list :type "tracepilot-join" :request "attach" :name "tracepilot: join the agent's session"))

(provide 'tracepilot-dap)
;;; tracepilot-dap.el ends here
